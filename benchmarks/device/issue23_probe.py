"""Issue 23 measurements that are not reference pairs (items 5, 9, 10, 11, 13), on a GPU machine.

    python benchmarks/device/issue23_probe.py OUTDIR

Each part runs in its own subprocess with a timeout (a hung or crashed kernel costs one part) and
writes OUTDIR/<part>.json; what the subprocess printed goes to OUTDIR/<part>.out (two files a
part: bring them back packed, e.g. `tar czf`, since a device call returns few files). Parts:

- race (item 5, KL145): the KL145 pair's bad and good kernels run 10 times each on 4,096 tiles of
  32x32 and 64x64 (fp32, 8 warps); wrong elements counted per run.
- fp64 (item 10, KL146): the KL146 pair's bad and good kernels, eager and under torch.compile,
  each with its own TRITON_CACHE_DIR: `.f64` instructions in the kernel's PTX and do_bench time.
- autotune1 (item 13): one tiny kernel as plain jit, autotuned with one config and with two:
  first-call time and host time per launch over 5,000 launches.
- align (item 11): a copy kernel warmed on 16-byte-aligned tensors, then called on views one
  element in (4-byte aligned) and four elements in (16-byte aligned): compiled variants, first-call
  time, do_bench time at 64M elements.
- print (item 9): `tl.device_print` with a C-style format in the prefix and without, stdout kept.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "reference_kernels" / "triton"
#: "cpu" with TRITON_INTERPRET=1 for a dry run of the parts that need no compiler (race, autotune1,
#: align, print); the measurement is on "cuda".
DEVICE = os.environ.get("PROBE_DEVICE", "cuda")


def _bench(function) -> float | None:
    """do_bench's median time in ms; None in a CPU dry run."""
    if DEVICE != "cuda":
        function()
        return None
    import triton
    return triton.testing.do_bench(function)


def _sync() -> None:
    import torch
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def _load(path: Path, name: str):
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- parts (each runs in a child) -------------------------------------------------------------

def part_race(out: Path) -> dict:
    import torch
    folder = PAIRS / "KL145_store_load_race_without_barrier"
    reference = _load(folder / "reference.py", "kl145_reference")
    results = {}
    for variant in ("bad", "good"):
        module = _load(folder / f"{variant}.py", f"kl145_{variant}")
        for block in (32, 64):
            inputs = reference.make_inputs({"tiles": 4096 if DEVICE == "cuda" else 4, "block": block}, DEVICE)
            expected = reference.reference(**inputs)
            wrong = []
            for _ in range(10 if DEVICE == "cuda" else 1):
                got = module.run(**inputs)
                _sync()
                wrong.append(int((~torch.isclose(got, expected, atol=1e-5, rtol=1e-5)).sum().item()))
            results[f"{variant}-block{block}"] = {"elements": expected.numel(), "wrong_per_run": wrong}
    return results


def part_fp64(out: Path, variant: str, mode: str) -> dict:
    # the kernel caches stay outside OUTDIR: a device call brings back a limited number of files
    import tempfile
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"fp64-{variant}-{mode}-")
    import torch
    import triton
    folder = PAIRS / "KL146_float_scalar_fp64_under_compile"
    reference = _load(folder / "reference.py", "kl146_reference")
    module = _load(folder / f"{variant}.py", f"kl146_{variant}")
    eager = getattr(module.swiglu, "_torchdynamo_orig_callable", None) or module.swiglu.__wrapped__
    function = module.run if mode == "compiled" else eager
    results = {"torch": torch.__version__, "triton": triton.__version__}
    for rows, cols in ((8192, 3072), (16384, 4096)):
        inputs = reference.make_inputs({"rows": rows, "cols": cols}, DEVICE)
        got = function(**inputs)
        error = (got.float() - reference.reference(**inputs).float()).abs().max().item()
        ms = _bench(lambda: function(**inputs))
        results[f"{rows}x{cols}"] = {"ms": ms, "max_abs_error": error}
    ptx = [p for p in Path(os.environ["TRITON_CACHE_DIR"]).rglob("*.ptx") if "swiglu" in p.name]
    results["ptx_files"] = [str(p.relative_to(os.environ["TRITON_CACHE_DIR"])) for p in ptx]
    results["f64_lines"] = [sum(".f64" in line for line in p.read_text().splitlines()) for p in ptx]
    results["f32_lines"] = [sum(".f32" in line for line in p.read_text().splitlines()) for p in ptx]
    return results


def part_autotune1(out: Path) -> dict:
    import torch
    import triton
    import triton.language as tl

    def body(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)

    plain = triton.jit(body)
    one = triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4)], key=["n"])(triton.jit(body))
    two = triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4),
                                   triton.Config({"BLOCK": 1024}, num_warps=8)], key=["n"])(triton.jit(body))
    x = torch.zeros(4096, device=DEVICE)
    results = {}
    for name, kernel, extra in (("jit", plain, {"BLOCK": 1024}), ("autotune-1-config", one, {}),
                                ("autotune-2-configs", two, {})):
        _sync()
        start = time.perf_counter()
        kernel[(4,)](x, 4096, **extra)
        _sync()
        first = time.perf_counter() - start
        launches = 5000 if DEVICE == "cuda" else 5
        start = time.perf_counter()
        for _ in range(launches):
            kernel[(4,)](x, 4096, **extra)
        _sync()
        per_launch = (time.perf_counter() - start) / launches
        results[name] = {"first_call_s": first, "per_launch_us": per_launch * 1e6}
    return results


def part_align(out: Path) -> dict:
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)

    def launch(x, y):
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)

    def variants() -> int | None:
        if not hasattr(copy_kernel, "device_caches"):
            return None  # the interpreter compiles nothing
        return sum(len(cache[0]) if isinstance(cache, tuple) else len(cache)
                   for cache in copy_kernel.device_caches.values())

    n = 64 * 1024 * 1024 if DEVICE == "cuda" else 4096
    base_x = torch.randn(n + 8, device=DEVICE)
    base_y = torch.empty(n + 8, device=DEVICE)
    results = {}
    for name, offset in (("aligned", 0), ("offset-1-element", 1), ("offset-4-elements", 4), ("aligned-again", 0)):
        x, y = base_x[offset:offset + n], base_y[offset:offset + n]
        _sync()
        start = time.perf_counter()
        launch(x, y)
        _sync()
        first = time.perf_counter() - start
        ms = _bench(lambda: launch(x, y))
        results[name] = {"data_ptr_mod_16": x.data_ptr() % 16, "first_call_s": first, "compiled_variants_after": variants(),
                         "ms": ms, "GBps": 2 * 4 * n / ms / 1e6 if ms else None, "correct": bool(torch.equal(x, y))}
    return results


def part_print(out: Path, form: str) -> dict:
    import torch
    import triton
    import triton.language as tl

    if form == "c-style":
        @triton.jit
        def show(x_ptr):
            x = tl.load(x_ptr + tl.arange(0, 4))
            tl.device_print("x = %d", x)
    else:
        @triton.jit
        def show(x_ptr):
            x = tl.load(x_ptr + tl.arange(0, 4))
            tl.device_print("x = ", x)
    x = torch.tensor([11, 22, 33, 44], device=DEVICE, dtype=torch.int32)
    show[(1,)](x, num_warps=1)
    _sync()
    return {"values": [11, 22, 33, 44]}


PARTS = {
    "race": (part_race, ()),
    "fp64-bad-eager": (part_fp64, ("bad", "eager")),
    "fp64-good-eager": (part_fp64, ("good", "eager")),
    "fp64-bad-compiled": (part_fp64, ("bad", "compiled")),
    "fp64-good-compiled": (part_fp64, ("good", "compiled")),
    "autotune1": (part_autotune1, ()),
    "align": (part_align, ()),
    "print-c-style": (part_print, ("c-style",)),
    "print-plain": (part_print, ("plain",)),
}


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        out, part = Path(sys.argv[2]), sys.argv[3]
        function, args = PARTS[part]
        result = function(out, *args)
        (out / f"{part}.json").write_text(json.dumps(result, indent=2))
        return 0
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    only = sys.argv[2].split(",") if len(sys.argv) > 2 else list(PARTS)
    for part in only:
        start = time.monotonic()
        with open(out / f"{part}.out", "w") as log:
            try:
                rc = subprocess.run([sys.executable, __file__, "--child", str(out), part], stdout=log,
                                    stderr=subprocess.STDOUT, timeout=240).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
        print(f"{part}: rc {rc} in {time.monotonic() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
