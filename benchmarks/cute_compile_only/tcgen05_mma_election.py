"""Issue 23 item 16, "SM100 MMA issued without `elect_one`": does CuTe DSL issue a tcgen05 MMA from
every thread when `cute.gemm` is not wrapped in `with cute.arch.elect_one():`?

Compiles CUTLASS's Blackwell `dense_gemm.py` example (read from a CUTLASS checkout, not copied)
for sm_100a without a GPU, as written (its MMA warp calls `cute.gemm` with no `elect_one`) and
with the call wrapped in `elect_one`, and counts, in the PTX, the `tcgen05.mma` instructions and
how many of them sit in a block entered through `elect.sync` (no label between the election and
the MMA).

usage: PYTHONPATH=/opt/cutedsl:/opt/cutedsl/nvidia_cutlass_dsl/dsl_packages \
       python benchmarks/cute_compile_only/tcgen05_mma_election.py /path/to/cutlass
"""
import importlib.util
import os
import pathlib
import re
import sys
import tempfile

os.environ.setdefault("CUTE_DSL_ARCH", "sm_100a")
os.environ.setdefault("CUTE_DSL_DUMP_DIR", tempfile.mkdtemp())

import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
import cuda.bindings.driver as cuda  # noqa: E402
from cutlass.cute.runtime import make_fake_tensor  # noqa: E402

EXAMPLE = "examples/python/CuTeDSL/cute/blackwell/kernel/dense_gemm/dense_gemm.py"
CALL = """                        cute.gemm(
                            tiled_mma, tCtAcc, tCrA[kblk_crd], tCrB[kblk_crd], tCtAcc
                        )"""
ELECTED = """                        with cute.arch.elect_one():
                            cute.gemm(
                                tiled_mma, tCtAcc, tCrA[kblk_crd], tCrB[kblk_crd], tCtAcc
                            )"""


def compile_variant(source: str, name: str) -> str:
    path = pathlib.Path(tempfile.mkdtemp()) / f"dense_gemm_{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"dense_gemm_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    m, n, k = 512, 512, 256
    a = make_fake_tensor(cutlass.Float16, (m, k, 1), stride=(k, 1, m * k), assumed_align=16)
    b = make_fake_tensor(cutlass.Float16, (n, k, 1), stride=(k, 1, n * k), assumed_align=16)
    c = make_fake_tensor(cutlass.Float16, (m, n, 1), stride=(n, 1, m * n), assumed_align=16)
    gemm = module.DenseGemmKernel(cutlass.Float32, False, (128, 128), (1, 1), True)
    return cute.compile(gemm, a, b, c, cuda.CUstream(0), options="--keep-ptx").__ptx__


def elected(lines: list[str], at: int) -> bool:
    for line in reversed(lines[:at]):
        if line.startswith("$L__"):
            return False
        if "elect.sync" in line:
            return True
    return False


def main():
    source = (pathlib.Path(sys.argv[1]) / EXAMPLE).read_text()
    assert source.count(CALL) == 1
    print(f"nvidia-cutlass-dsl {__import__('importlib.metadata').metadata.version('nvidia-cutlass-dsl')}, "
          f"target {os.environ['CUTE_DSL_ARCH']}, {EXAMPLE}")
    for name, text in (("as written (no elect_one)", source), ("wrapped in elect_one", source.replace(CALL, ELECTED))):
        ptx = compile_variant(text, name.split()[0])
        lines = ptx.splitlines()
        mmas = [i for i, l in enumerate(lines) if re.match(r"\s*tcgen05\.mma\.", l)]
        print(f"{name}: {len(mmas)} tcgen05.mma, {sum(elected(lines, i) for i in mmas)} of them right after an "
              f"elect.sync; elect.sync in the kernel: {ptx.count('elect.sync')}")


if __name__ == "__main__":
    main()
