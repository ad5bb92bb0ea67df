"""Issue 23 item 16, "a partitioned tensor indexed with its full coordinate": what CuTe DSL makes of
the other spellings. A 64-bit copy atom (2 floats per copy) tiled with 4 values per thread gives a
partitioned identity tensor of shape ((2, 2), 2, 2): two vectors of two elements per thread. The
seed's recipe reads the first element of vector `rest_v` as `tXcX[(0, rest_v), m, k]`.

- `tXcX[(0, rest_v), m, k]`: the full coordinate;
- `tXcX[rest_v, m, k]`: compiles, and reads element `rest_v` of the flattened first mode, another
  element (compare the column constants in the two PTX listings);
- `tXcX[0, rest_v, m, k]`: one index per level, a rank-4 coordinate for a rank-3 view.

usage: PYTHONPATH=/opt/cutedsl:/opt/cutedsl/nvidia_cutlass_dsl/dsl_packages \\
       python benchmarks/cute_compile_only/partitioned_full_coordinate.py
"""
import difflib
import os
import tempfile

os.environ.setdefault("CUTE_DSL_DUMP_DIR", tempfile.mkdtemp())

import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cutlass import Int32  # noqa: E402
from cutlass.cute.runtime import make_fake_tensor  # noqa: E402

REST_V, M, K = 1, 1, 1


def build(form: str):
    @cute.kernel
    def kernel(dst: cute.Tensor):
        tidx, _, _ = cute.arch.thread_idx()
        atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), cutlass.Float32, num_bits_per_copy=64)
        tiled = cute.make_tiled_copy_tv(atom, cute.make_layout((8, 8), stride=(8, 1)), cute.make_layout((1, 4)))
        tXcX = tiled.get_slice(tidx).partition_S(cute.make_identity_tensor((16, 64)))
        if cutlass.const_expr(form == "full"):
            coord = tXcX[(0, REST_V), M, K]
        elif cutlass.const_expr(form == "flat"):
            coord = tXcX[REST_V, M, K]
        else:
            coord = tXcX[0, REST_V, M, K]
        dst[tidx, 0] = coord[0]
        dst[tidx, 1] = coord[1]

    @cute.jit
    def launch(dst: cute.Tensor):
        kernel(dst).launch(grid=(1, 1, 1), block=(64, 1, 1))

    return launch


def main():
    import importlib.metadata
    print(f"nvidia-cutlass-dsl {importlib.metadata.version('nvidia-cutlass-dsl')} (the DSL's default target)")
    dst = make_fake_tensor(Int32, (64, 2), stride=(2, 1), assumed_align=16)
    listings = {}
    for form, spelling in (("full", "tXcX[(0, rest_v), m, k]"), ("flat", "tXcX[rest_v, m, k]"),
                           ("one_per_level", "tXcX[0, rest_v, m, k]")):
        try:
            ptx = cute.compile(build(form), dst, options="--keep-ptx").__ptx__
            listings[form] = [l.strip() for l in ptx.splitlines() if l.strip() and not l.strip().startswith("//")]
            print(f"{spelling}: compiled")
        except Exception as error:  # the compile error is the measurement
            print(f"{spelling}: {type(error).__name__}: {' | '.join(str(error).splitlines())[:300]}")
    changed = [l for l in difflib.unified_diff(listings["full"], listings["flat"], lineterm="", n=0)
               if l[:1] in "+-" and not l.startswith(("+++", "---")) and ".entry" not in l and "_param_" not in l]
    print("PTX lines that differ between the full and the flat spelling (- full, + flat):")
    for line in changed:
        print(f"    {line}")


if __name__ == "__main__":
    main()
