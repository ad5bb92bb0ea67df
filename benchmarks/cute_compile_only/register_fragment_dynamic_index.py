"""Compile KL321's fixture kernels with CuTe DSL and no GPU and count local-memory accesses in
their PTX: a register fragment indexed at run time lives in local memory (ld.local/st.local),
one indexed by constants stays in registers. The silent fixture's `shared_tile` indexes a global
tensor at run time (no local memory), and `lane_bounded` loops `range(tidx % 32)` over a
32-element fragment, which the compiler bounds and keeps in registers.

usage: PYTHONPATH=/opt/cutedsl:/opt/cutedsl/nvidia_cutlass_dsl/dsl_packages python register_fragment_dynamic_index.py
"""
import importlib.util
import os
import pathlib
import tempfile

# --keep-ptx writes the .ptx file into CUTE_DSL_DUMP_DIR (read at import; default: the working directory)
os.environ.setdefault("CUTE_DSL_DUMP_DIR", tempfile.mkdtemp())

import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cutlass import Float32, Int32  # noqa: E402
from cutlass.cute.runtime import make_fake_tensor  # noqa: E402

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "cute"


def load(name):
    spec = importlib.util.spec_from_file_location(name, FIXTURES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def local_accesses(kernel, takes_n, *extra):
    """``ld.local`` / ``st.local`` counts in the PTX of ``kernel`` launched on one CTA."""
    @cute.jit
    def launch(src: cute.Tensor, dst: cute.Tensor, n: Int32):
        if cutlass.const_expr(takes_n):
            kernel(src, dst, n, *extra).launch(grid=(1, 1, 1), block=(32, 1, 1))
        else:
            kernel(src, dst).launch(grid=(1, 1, 1), block=(32, 1, 1))

    tensor = make_fake_tensor(Float32, (1024,), stride=(1,), assumed_align=16)
    ptx = cute.compile(launch, tensor, tensor, Int32(8), options="--keep-ptx").__ptx__
    return f"ld.local {ptx.count('ld.local')}, st.local {ptx.count('st.local')}"


def main():
    reported = load("KL321_fragments_indexed_by_run_time_loops_are_reported")
    silent = load("KL321_static_indices_are_not_reported")
    print(f"nvidia-cutlass-dsl {__import__('importlib.metadata').metadata.version('nvidia-cutlass-dsl')}")
    print("reported partial_row_sum:", local_accesses(reported.partial_row_sum, True))
    print("reported unrolled_run_time_count:", local_accesses(reported.unrolled_run_time_count, True))
    print("silent unrolled (width=8):", local_accesses(silent.unrolled, True, 8))
    print("silent shared_tile:", local_accesses(silent.shared_tile, True))
    print("silent lane_bounded:", local_accesses(silent.lane_bounded, False))


if __name__ == "__main__":
    main()
