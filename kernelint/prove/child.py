"""The process that runs one variant of a pair: ``python -m kernelint.prove.child``.

``run PAIR_DIR VARIANT CASE [CASE ...] --device DEV`` imports the pair's files by path, and per
case builds the inputs, computes the reference, prints a ready marker (the parent's watchdog
starts there), calls the entry, synchronizes, compares, times perf pairs, and prints one result
line. The parent (``runner.py``) owns timeouts and kills; nothing here catches a hang.

``probe MODULE ...`` prints the machine's environment and which modules are importable.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import subprocess
import sys
import time
import traceback
from pathlib import Path

from kernelint.prove import roofline
from kernelint.prove.manifest import load_pair

READY = "KERNELINT-READY "
RESULT = "KERNELINT-RESULT "
_TEXT_LIMIT = 4000


_channel = sys.stdout


def emit(prefix: str, payload) -> None:
    """One marker line to the parent, on a channel of its own: whatever the kernel prints to stdout
    (device printf, compiler logs) cannot split or hide it."""
    _channel.write(prefix + json.dumps(payload, default=str) + "\n")
    _channel.flush()


def _load(path: Path, variant: str):
    """Import a pair file by path under a unique module name: Triton's @jit reads the real file."""
    spec = importlib.util.spec_from_file_location(f"kernelint_pair_{path.parent.name}_{variant}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _error(phase: str, error: BaseException) -> dict:
    kind = type(error)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    return {
        "status": "error", "phase": phase, "error_type": name,
        "error_message": str(error)[:_TEXT_LIMIT],
        "traceback_tail": "".join(traceback.format_exception(kind, error, error.__traceback__))[-_TEXT_LIMIT:],
    }


def _clone(value):
    import torch

    if isinstance(value, torch.Tensor):
        return value.clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    return value


def _tensors(value) -> list:
    import torch

    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return [value if isinstance(value, torch.Tensor) else torch.as_tensor(value)]


def _finite(x: float):
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf" if x < 0 else "nan")


def compare(out, ref, atol: float, rtol: float) -> dict:
    """``torch.allclose`` per output tensor (NaN equal to NaN), plus max abs/rel error and the count
    of elements outside ``atol + rtol * |ref|``. Errors are computed in float64, a slice at a time
    (outputs of several GB must not need several times that in memory)."""
    outs, refs = _tensors(out), _tensors(ref)
    if len(outs) != len(refs):
        return {"match": False, "note": f"entry returned {len(outs)} tensors, reference {len(refs)}"}
    totals = {"match": True, "max_abs": 0.0, "max_rel": 0.0, "mismatched": 0, "numel": 0}
    notes = []
    for index, (o, r) in enumerate(zip(outs, refs)):
        if tuple(o.shape) != tuple(r.shape):
            notes.append(f"output {index}: shape {tuple(o.shape)} != reference {tuple(r.shape)}")
            continue
        a, b = o.detach().reshape(-1), r.detach().reshape(-1).to(o.device)
        for start in range(0, a.numel(), _CHUNK):
            _compare_slice(a[start:start + _CHUNK], b[start:start + _CHUNK], atol, rtol, totals)
    result = {**totals, "max_abs": _finite(totals["max_abs"]), "max_rel": _finite(totals["max_rel"])}
    if notes:
        result.update(match=False, note="; ".join(notes))
    return result


_CHUNK = 1 << 25


def _compare_slice(a, b, atol: float, rtol: float, totals: dict) -> None:
    import torch

    a, b = a.to(torch.float64), b.to(torch.float64)
    diff = (a - b).abs()
    same = (a == b) | (torch.isnan(a) & torch.isnan(b))
    diff = torch.nan_to_num(torch.where(same, torch.zeros_like(diff), diff), nan=math.inf, posinf=math.inf)
    scale = b.abs()
    rel = torch.nan_to_num(torch.where(diff == 0, torch.zeros_like(diff), diff / scale), nan=math.inf,
                           posinf=math.inf)
    totals["numel"] += a.numel()
    totals["max_abs"] = max(totals["max_abs"], float(diff.max()))
    totals["max_rel"] = max(totals["max_rel"], float(rel.max()))
    totals["mismatched"] += int((diff > atol + rtol * scale).sum())
    if not torch.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True):
        totals["match"] = False


def _synchronize(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _bench(fn, device: str) -> dict:
    """Median (and 20/80 % quantiles) milliseconds of ``fn`` by ``triton.testing.do_bench``."""
    if not device.startswith("cuda"):
        start = time.perf_counter()
        fn()
        return {"time_ms": (time.perf_counter() - start) * 1e3, "timer": "wall clock, one call (no GPU)"}
    from triton.testing import do_bench

    median, q20, q80 = do_bench(fn, quantiles=[0.5, 0.2, 0.8])
    return {"time_ms": median, "time_ms_q20": q20, "time_ms_q80": q80, "timer": "triton.testing.do_bench median"}


def _throughput(work, time_ms: float, device: str) -> dict:
    """TFLOP/s or GB/s, and on a GPU with known peaks the fraction of the roofline it reaches."""
    amount, unit, *peak = work
    if unit == "FLOP":
        result = {"throughput": amount / (time_ms * 1e-3) / 1e12, "throughput_unit": "TFLOP/s"}
    elif unit == "B":
        result = {"throughput": amount / (time_ms * 1e-3) / 1e9, "throughput_unit": "GB/s"}
    else:
        raise ValueError(f"work() must return (amount, 'FLOP') or (amount, 'B'), got unit {unit!r}")
    result["peak"] = peak[0] if peak else roofline.DEFAULT_PEAK[unit]
    if device.startswith("cuda"):
        import torch

        share = roofline.fraction(result, torch.cuda.get_device_name())
        if share is not None:
            result["roofline_fraction"] = share
    return result


def run_case(pair, reference, entry, case, device: str, bench: bool) -> dict:
    import torch

    try:
        torch.manual_seed(0)
        inputs = reference.make_inputs(dict(case.params), device)
        if not isinstance(inputs, dict):
            raise TypeError(f"make_inputs returned {type(inputs).__name__}, not a dict of keyword arguments")
    except Exception as error:
        return _error("inputs", error)
    try:
        expected = reference.reference(**_clone(inputs))
        _synchronize(device)
    except Exception as error:
        return _error("reference", error)

    emit(READY, {"case": case.name})
    start = time.perf_counter()
    try:
        out = entry(**inputs)
        _synchronize(device)
    except Exception as error:
        return _error("run", error)
    result = {"status": "ok", "run_s": time.perf_counter() - start}
    try:
        result.update(compare(out, expected, pair.atol, pair.rtol))
    except Exception as error:
        return {**_error("check", error), "run_s": result["run_s"]}
    if bench and result["match"]:
        try:
            result.update(_bench(lambda: entry(**inputs), device))
            result.update(_throughput(reference.work(dict(case.params)), result["time_ms"], device))
        except Exception as error:
            return {**result, **_error("bench", error), "match": result["match"]}
    return result


def _time_autotune_on_cpu() -> None:
    """Under TRITON_INTERPRET=1 the autotuner still times configs through the GPU driver, which a
    CPU machine lacks; give it a wall-clock timer so autotuned pairs run in ``--interpret``."""
    from triton.runtime import autotuner

    def wall_clock_bench(fn, quantiles=None):
        start = time.perf_counter()
        fn()
        elapsed_ms = (time.perf_counter() - start) * 1e3
        return [elapsed_ms] * len(quantiles) if quantiles else elapsed_ms

    autotuner.Autotuner.do_bench = property(lambda self: wall_clock_bench)


def run(pair_dir: Path, variant: str, case_names: list[str], device: str) -> int:
    pair = load_pair(pair_dir)
    if os.environ.get("TRITON_INTERPRET") == "1" and pair.dsl == "triton":
        _time_autotune_on_cpu()
    sys.path.insert(0, str(pair_dir))
    try:
        reference = _load(pair_dir / "reference.py", "reference")
        entry = getattr(_load(pair.file(variant), variant), pair.entry)
    except Exception as error:
        failure = _error("import", error)
        for name in case_names:
            emit(RESULT, {"case": name, **failure})
        return 0
    for name in case_names:
        result = run_case(pair, reference, entry, pair.case(name), device, bench=pair.evidence_class == "perf")
        emit(RESULT, {"case": name, **result})
    return 0


def _version(*dists: str) -> str | None:
    from importlib import metadata

    for dist in dists:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _nvidia_smi() -> dict:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        return {}
    if not out:
        return {}
    name, _, driver = out[0].rpartition(",")
    return {"gpu": name.strip(), "driver": driver.strip()}


def probe(modules: list[str]) -> dict:
    """The environment a record names, and which of ``modules`` can be imported."""
    env = {
        "python": platform.python_version(), "platform": platform.platform(),
        "torch": _version("torch"), "triton": _version("triton"),
        "cutlass_dsl": _version("nvidia-cutlass-dsl"), "cuda_tile": _version("cuda-tile"),
        "gpu": None, "compute_capability": None, "driver": None, "cuda": None, "cuda_available": False,
    }
    if env["cutlass_dsl"] is None and _importable("cutlass"):
        try:
            import cutlass

            env["cutlass_dsl"] = getattr(cutlass, "__version__", None)
        except Exception as error:  # reported, not fatal: the pairs that need it will say more
            env["cutlass_dsl_error"] = f"{type(error).__name__}: {error}"
    try:
        import torch

        env["cuda"] = torch.version.cuda
        if os.environ.get("TRITON_INTERPRET") != "1" and torch.cuda.is_available():
            env["cuda_available"] = True
            env["gpu"] = torch.cuda.get_device_name()
            major, minor = torch.cuda.get_device_capability()
            env["compute_capability"] = f"{major}.{minor}"
            env["gpu_count"] = torch.cuda.device_count()
            smi = _nvidia_smi()
            env["driver"] = smi.get("driver")
            if env["driver"] is None:
                version = torch._C._cuda_getDriverVersion()
                env["driver"] = f"CUDA driver API {version // 1000}.{version % 1000 // 10}"
    except Exception as error:
        env["torch_error"] = f"{type(error).__name__}: {error}"
    env["importable"] = {module: _importable(module) for module in modules}
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernelint.prove.child")
    commands = parser.add_subparsers(dest="command", required=True)
    run_cmd = commands.add_parser("run")
    run_cmd.add_argument("pair", type=Path)
    run_cmd.add_argument("variant", choices=("bad", "good"))
    run_cmd.add_argument("cases", nargs="+")
    run_cmd.add_argument("--device", default="cuda")
    run_cmd.add_argument("--channel", type=Path, help="file for the marker lines (default: stdout)")
    probe_cmd = commands.add_parser("probe")
    probe_cmd.add_argument("modules", nargs="*")
    args = parser.parse_args(argv)
    if args.command == "probe":
        emit(RESULT, probe(args.modules))
        return 0
    global _channel
    if args.channel:
        _channel = open(args.channel, "a", encoding="utf-8")
    return run(args.pair, args.variant, args.cases, args.device)


if __name__ == "__main__":
    sys.exit(main())
