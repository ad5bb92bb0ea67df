"""Issue 23 item 16, "FP4 B operands not K-major": what CuTe DSL does with an MN-major FP4 B.

1. `make_blockscaled_trivial_tiled_mma(Float4E2M1FN, Float4E2M1FN, K, b_major, ...)`: the MMA op
   and its B major mode, for b_major K and MN (and, as a control, for Float8E4M3FN).
2. CUTLASS's Blackwell `dense_blockscaled_gemm_persistent.py` example (read from a CUTLASS
   checkout, not copied), compiled for sm_100a with FP4 A/B and b_major "k" or "n" through its
   own `scaled_mm` (the example's `can_implement` would refuse "n"; it is not called here).

usage: PYTHONPATH=/opt/cutedsl:/opt/cutedsl/nvidia_cutlass_dsl/dsl_packages \
       python benchmarks/cute_compile_only/fp4_b_major.py /path/to/cutlass
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
import cutlass.utils.blackwell_helpers as sm100_utils  # noqa: E402
import cuda.bindings.driver as cuda  # noqa: E402
from cutlass.cute.nvgpu import OperandMajorMode, tcgen05  # noqa: E402

EXAMPLE = "examples/python/CuTeDSL/cute/blackwell/kernel/blockscaled_gemm/dense_blockscaled_gemm_persistent.py"


def helper_result(dtype, sf_dtype, sf_vec, b_major):
    found = {}

    @cute.jit
    def build():
        mma = sm100_utils.make_blockscaled_trivial_tiled_mma(dtype, dtype, OperandMajorMode.K, b_major, sf_dtype, sf_vec,
                                                              tcgen05.CtaGroup.ONE, (128, 128))
        found["op"] = type(mma.op).__name__
        found["b_major"] = mma.op.b_major_mode

    build()
    return found


def main():
    print(f"nvidia-cutlass-dsl {__import__('importlib.metadata').metadata.version('nvidia-cutlass-dsl')}, "
          f"target {os.environ['CUTE_DSL_ARCH']}")
    for dtype, sf, vec in ((cutlass.Float4E2M1FN, cutlass.Float8E4M3FN, 16), (cutlass.Float8E4M3FN, cutlass.Float8E8M0FNU, 32)):
        for major in (OperandMajorMode.K, OperandMajorMode.MN):
            got = helper_result(dtype, sf, vec, major)
            print(f"make_blockscaled_trivial_tiled_mma {dtype.__name__}, b {major}: {got['op']}, b major {got['b_major']}")
    path = pathlib.Path(sys.argv[1]) / EXAMPLE
    spec = importlib.util.spec_from_file_location("blockscaled_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for b_major in ("k", "n"):
        gemm = module.Sm100BlockScaledPersistentDenseGemmKernel(16, (128, 128), (1, 1))
        try:
            ptx = module.scaled_mm(gemm, cutlass.Float4E2M1FN, cutlass.Float4E2M1FN, cutlass.Float16, cutlass.Float8E4M3FN,
                                   "k", b_major, "n", 1, cuda.CUstream(0), options="--keep-ptx").__ptx__
            kinds = sorted(set(re.findall(r"tcgen05\.mma\S*?(kind::\w+)", ptx)))
            print(f"example, FP4, b_major={b_major!r}: compiled; tcgen05.mma kinds {kinds}; "
                  f"{ptx.count('cp.async.bulk.tensor')} TMA instructions")
        except Exception as error:  # the compile error is the measurement
            print(f"example, FP4, b_major={b_major!r}: {type(error).__name__}: {str(error)[:400]}")


if __name__ == "__main__":
    main()
