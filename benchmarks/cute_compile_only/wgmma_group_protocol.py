"""Compile KL322's reference pair for sm_90a with CuTe DSL and no GPU, plus three variants of its
good kernel that each drop one step of the wgmma protocol, and read the order of the
synchronisation instructions in the SASS.

What it shows: ptxas repairs a missing `warpgroup.fence()` (it injects `warpgroup.arrive`, C7519)
and a missing `commit_group()` (SASS identical to the good kernel), and it injects a missing
`wait_group` only where the accumulator registers are read (C7517): the stage release
(`consumer_release`: `SYNCS.ARRIVE.TRANS64.A1T0` / `.ART0` on the stage's empty barrier; the
producer's expect-tx arrive is the plain `SYNCS.ARRIVE.TRANS64`) then comes before the
first `WARPGROUP.DEPBAR` after the main loop's last `HGMMA`.

With a CUTLASS checkout as argument, the same three removals are also made in CUTLASS's Hopper
`dense_gemm.py` example (read from the checkout, not copied).

usage: PYTHONPATH=/opt/cutedsl:/opt/cutedsl/nvidia_cutlass_dsl/dsl_packages \
       python benchmarks/cute_compile_only/wgmma_group_protocol.py [/path/to/cutlass]
(cuobjdump: from PATH, else the one in the triton wheel)
"""
import glob
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")
DUMP = tempfile.mkdtemp()
os.environ["CUTE_DSL_DUMP_DIR"] = DUMP  # read at import: --keep-ptx/--keep-cubin write here

import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cutlass.cute.runtime import make_fake_tensor  # noqa: E402

PAIR = pathlib.Path(__file__).resolve().parents[2] / "reference_kernels" / "cute" / "KL322_wgmma_stage_released_before_wait"
KEY = re.compile(r"HGMMA|WARPGROUP\.(ARRIVE|DEPBAR)|SYNCS\.ARRIVE")


def cuobjdump() -> str:
    found = shutil.which("cuobjdump")
    if found:
        return found
    import triton
    return str(pathlib.Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump")


def load(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def variant(source: str, name: str) -> pathlib.Path:
    """The good kernel with one protocol step turned into `pass`."""
    line = {"no_fence": "        warpgroup.fence()\n", "no_commit": "        warpgroup.commit_group()\n"}[name]
    assert source.count(line) == 1, name
    path = pathlib.Path(tempfile.mkdtemp()) / f"good_{name}.py"
    path.write_text(source.replace(line, "        pass\n"))
    return path


EXAMPLE = "examples/python/CuTeDSL/cute/hopper/kernel/dense_gemm/dense_gemm.py"
#: (line as written in the example, how many times) for each removal
EXAMPLE_REMOVALS = {
    "no_fence": [("            cute.nvgpu.warpgroup.fence()\n", 2)],
    "no_commit": [("            cute.nvgpu.warpgroup.commit_group()\n", 2)],
    "no_wait": [("            cute.nvgpu.warpgroup.wait_group(k_pipe_mmas)\n", 1),
                ("        cute.nvgpu.warpgroup.wait_group(0)\n", 1)],
}


def example_variant(source: str, name: str) -> pathlib.Path:
    for line, count in EXAMPLE_REMOVALS.get(name, []):
        assert source.count(line) == count, (name, line)
        source = source.replace(line, line.replace(line.strip(), "pass"))
    path = pathlib.Path(tempfile.mkdtemp()) / f"dense_gemm_{name}.py"
    path.write_text(source)
    return path


def compile_pair_kernel(module):
    a = make_fake_tensor(cutlass.Float16, (512, 512), stride=(512, 1), assumed_align=16)
    c = make_fake_tensor(cutlass.Float32, (512, 512), stride=(512, 1), assumed_align=16)
    cute.compile(module.gemm, a, a, c, options="--keep-cubin remarks{ptx}")


def compile_example(module):
    import cuda.bindings.driver as cuda
    a = make_fake_tensor(cutlass.Float16, (512, 256, 1), stride=(256, 1, 512 * 256), assumed_align=16)
    c = make_fake_tensor(cutlass.Float16, (512, 512, 1), stride=(512, 1, 512 * 512), assumed_align=16)
    gemm = module.HopperWgmmaGemmKernel(cutlass.Float32, (128, 128), (1, 1))
    cute.compile(gemm, a, a, c, cuda.CUstream(0), options="--keep-cubin remarks{ptx}")


def sass_of(path: pathlib.Path, name: str, compile_module=compile_pair_kernel) -> tuple[list[str], str]:
    for old in glob.glob(DUMP + "/*"):
        os.remove(old)
    module = load(path, name)
    import io
    import contextlib
    remarks = io.StringIO()
    with contextlib.redirect_stdout(remarks), contextlib.redirect_stderr(remarks):
        compile_module(module)
    cubin = glob.glob(DUMP + "/*.cubin")[0]
    text = subprocess.run([cuobjdump(), "-sass", cubin], capture_output=True, text=True, check=True).stdout
    lines = [re.sub(r"\s+", " ", l.split(";")[0]).strip() for l in text.splitlines() if KEY.search(l)]
    notes = sorted(set(re.findall(r"\(C75\d\d\)[^']*", remarks.getvalue())))
    return lines, "; ".join(n.strip() for n in notes) or "none"


def release_before_wait(lines: list[str]) -> str:
    """After the main loop's last HGMMA: does the stage release come before the first
    WARPGROUP.DEPBAR?"""
    last_mma = max(i for i, l in enumerate(lines) if "HGMMA" in l)
    for line in lines[last_mma + 1:]:
        if "WARPGROUP.DEPBAR" in line:
            return f"wait first ({line.split('*/')[-1].strip()})"
        if re.search(r"SYNCS\.ARRIVE\.TRANS64\.A", line):  # .A1T0/.ART0: a consumer's arrive, not expect_tx
            return f"RELEASE FIRST ({line.split('*/')[-1].strip()})"
    return "no release after the last HGMMA"


def main():
    import importlib.metadata
    print(f"nvidia-cutlass-dsl {importlib.metadata.version('nvidia-cutlass-dsl')}, target {os.environ['CUTE_DSL_ARCH']}")
    good_source = (PAIR / "good.py").read_text()
    kernels = {"good": PAIR / "good.py", "bad": PAIR / "bad.py",
               "good_no_fence": variant(good_source, "no_fence"), "good_no_commit": variant(good_source, "no_commit")}
    baseline = None
    for name, path in kernels.items():
        lines, notes = sass_of(path, name)
        stripped = [re.sub(r"/\*[0-9a-f]+\*/", "", l).strip() for l in lines]
        baseline = baseline if baseline is not None else stripped
        same = "identical to good" if stripped == baseline else "differs from good"
        print(f"{name}: {sum('HGMMA' in l for l in lines)} HGMMA; after the last HGMMA: {release_before_wait(lines)}; "
              f"sync SASS {same}; ptxas notes: {notes}")
        for line in lines:
            print(f"    {line}")
    if len(sys.argv) > 1:
        source = (pathlib.Path(sys.argv[1]) / EXAMPLE).read_text()
        print(f"CUTLASS {EXAMPLE}:")
        baseline = None
        for name in ("as_written", "no_fence", "no_commit", "no_wait"):
            lines, notes = sass_of(example_variant(source, name), f"example_{name}", compile_example)
            stripped = [re.sub(r"/\*[0-9a-f]+\*/", "", l).strip() for l in lines]
            baseline = baseline if baseline is not None else stripped
            same = "identical to as_written" if stripped == baseline else "differs from as_written"
            print(f"{name}: {sum('HGMMA' in l for l in lines)} HGMMA; after the last HGMMA: {release_before_wait(lines)}; "
                  f"sync SASS {same}; ptxas notes: {notes}")


if __name__ == "__main__":
    main()
