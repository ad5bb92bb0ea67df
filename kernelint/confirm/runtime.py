"""What a generated harness runs (``python harness.py run --variant as-is --out DIR``).

``run`` checks the memory budget before allocating, imports the user's module (for the
``fixed`` variant from a temporary copy of the project with only the harness's edits applied),
builds the recipe's inputs, prints prove's ready marker (the parent's watchdog starts there),
calls the entry, and saves what the judge compares under ``DIR``. ``judge`` reads the runs'
records and saved outputs and prints the verdict. Each run is its own process: a CUDA error
poisons the context, and a hang is killed by the parent.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

READY = "KERNELINT-READY "
RESULT = "KERNELINT-RESULT "
#: Leading and trailing rows compared by the int32 recipe.
EDGE_ROWS = 256
#: Share of free memory a run may plan to use.
BUDGET_SHARE = 0.9


class CannotBuild(Exception):
    """The input cannot be built (a size or type the source does not show, or no memory)."""


def cannot_build(why: str):
    raise CannotBuild(why)


def _emit(channel, prefix: str, payload: dict) -> None:
    channel.write(prefix + json.dumps(payload, default=str) + "\n")
    channel.flush()


def import_entry_module(spec: dict, root_override: Path | None = None):
    """The module that defines the entry: by its dotted name with the project root (and its
    ``src/``) on ``sys.path`` so its own imports resolve, else alone by its path."""
    root = Path(spec["project_root"]) if spec.get("project_root") else None
    entry = spec["entry"]
    path = Path(entry["path"])
    if root_override is not None and root is not None:
        path = root_override / path.resolve().relative_to(root.resolve())
        root = root_override
    if root is not None and entry.get("module"):
        for folder in (root / "src", root):
            if folder.is_dir():
                sys.path.insert(0, str(folder))
        try:
            return importlib.import_module(entry["module"])
        except (ImportError, OSError) as error:
            # A package __init__ that loads compiled extensions the kernel does not need
            # (mamba_ssm imports its CUDA extension): enter the packages as plain namespaces.
            return _import_skipping_inits(entry["module"], path, error)
    return _import_by_path(path)


def _import_skipping_inits(dotted: str, path: Path, first_error: BaseException):
    import types

    parts = dotted.split(".")
    for name in [n for n in sys.modules if n == parts[0] or n.startswith(parts[0] + ".")]:
        del sys.modules[name]
    folder = path.parent
    packages = []
    for depth in range(len(parts) - 1, 0, -1):
        packages.append((".".join(parts[:depth]), folder))
        folder = folder.parent
    for name, location in reversed(packages):
        namespace = types.ModuleType(name)
        namespace.__path__ = [str(location)]
        sys.modules[name] = namespace
    print(f"kernelint confirm: importing {dotted} failed ({type(first_error).__name__}: {first_error}); "
          "retrying with its packages' __init__ skipped", file=sys.stderr)
    return importlib.import_module(dotted)


def _import_by_path(path: Path):
    module_spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[path.stem] = module
    module_spec.loader.exec_module(module)
    return module


def _cut_configs(spec: dict, entry_module, keep: int) -> None:
    """Keep the first ``keep`` configs of the flagged kernel's autotuner (under any heuristics)."""
    kernel_module = sys.modules.get(spec["kernel"].get("module") or "", entry_module)
    kernel = getattr(kernel_module, spec["kernel"]["name"], None)
    while kernel is not None and not hasattr(kernel, "configs"):
        kernel = getattr(kernel, "fn", None)
    if kernel is None:
        raise CannotBuild(f"--max-configs: `{spec['kernel']['name']}` has no autotuner")
    kernel.configs = kernel.configs[:keep]


def fixed_copy(spec: dict, into: Path) -> Path:
    from kernelint.confirm.fixes import apply

    root = Path(spec["project_root"] or Path(spec["finding"]["path"]).parent)
    copy = into / root.name
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.so", "build", ".tox"),
                    symlinks=True)
    apply(spec["fix"], root, copy)
    return copy


def free_bytes(torch, device: str) -> int:
    if device == "cuda":
        return int(torch.cuda.mem_get_info()[0])
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return 0


def _maker(torch, device: str, recipe: str, variant: str, guards: list):
    """``make(shape, dtype)`` for the recipe: seeded values; guarded buffers for the mask recipe;
    the fp16 control of the bf16 recipe holds the same (exactly representable) values."""
    # Values are drawn on the device itself, in the tensor's dtype where it is a float: a tensor of
    # 2^31 elements is never staged in host memory or in fp32.
    generator = torch.Generator(device=device).manual_seed(0)

    def make(shape, dtype):
        dtype = getattr(torch, dtype)
        numel = 1
        for size in shape:
            numel *= int(size)
        if recipe == "bf16-through-fp16-pointer" and dtype == torch.bfloat16:
            # the same values in both runs, exact in bf16 and in fp16
            values = torch.rand(numel, generator=generator, device=device).to(torch.bfloat16)
            dtype = torch.float16 if variant == "control" else torch.bfloat16
        elif dtype.is_floating_point:
            values = torch.randn(numel, generator=generator, device=device, dtype=dtype)
        else:
            values = torch.randint(0, 4, (numel,), generator=generator, device=device).to(dtype)
        if recipe == "length-not-multiple-of-block":
            guard = 4096
            buffer = torch.empty(numel + guard, dtype=dtype, device=device)
            poison = float("nan") if dtype.is_floating_point and variant == "as-is" else (-1 if variant == "as-is" else 0)
            buffer[numel:] = poison
            buffer[:numel] = values.to(dtype)
            guards.append((buffer, numel))
            return buffer[:numel].view(*shape)
        return values.to(dtype).view(*shape)

    return make


def _tensors(value, torch) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v, torch)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v, torch)]
    return []


#: Elements of one tensor kept for the judge (the recipes that compare whole outputs use small sizes).
SAVED_LIMIT = 2**22


def _saved(torch, tensors: list, recipe: str) -> list:
    """What the judge compares, on the CPU: nothing for the grid recipe (it judges the launch),
    the first and last rows for the int32 recipe, else each tensor (its first ``SAVED_LIMIT``
    elements)."""
    if recipe == "grid-axis-65536":
        return []
    out = []
    for tensor in tensors:
        tensor = tensor.detach()
        if recipe == "elements-past-int32":
            rows = tensor.reshape(-1, tensor.shape[-1]) if tensor.dim() > 1 else tensor.reshape(-1, 1)
            out.append((rows[:EDGE_ROWS].float().cpu(), rows[-EDGE_ROWS:].float().cpu()))
        else:
            out.append(tensor.reshape(-1)[:SAVED_LIMIT].float().cpu())
    return out


def _environment(torch, device: str) -> dict:
    """The machine a run used, for the record (as prove's records name theirs)."""
    import importlib.metadata as metadata

    env = {"device": device, "torch": torch.__version__, "interpret": bool(os.environ.get("TRITON_INTERPRET"))}
    try:
        env["triton"] = metadata.version("triton")
    except metadata.PackageNotFoundError:
        env["triton"] = None
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name()
    return env


def run(spec: dict, inputs, call, variant: str, out: Path, channel) -> dict:
    phase, environment = "setup", {}
    try:
        import torch

        device = "cuda" if torch.cuda.is_available() and not os.environ.get("TRITON_INTERPRET") else "cpu"
        environment = _environment(torch, device)
        recipe = spec["recipe"]
        if spec["problems"]:
            raise CannotBuild("; ".join(spec["problems"]))
        sizes = spec["control_sizes"] if variant == "control" and spec.get("control_sizes") else spec["sizes"]
        free = free_bytes(torch, device)
        if spec["estimated_bytes"] > BUDGET_SHARE * free:
            raise CannotBuild(f"needs about {spec['estimated_bytes'] / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free "
                              f"on {device}")
        with tempfile.TemporaryDirectory(prefix="kernelint-confirm-fixed-") as scratch:
            module = import_entry_module(spec, fixed_copy(spec, Path(scratch)) if variant == "fixed" else None)
            if spec["kernel"].get("max_configs"):
                _cut_configs(spec, module, spec["kernel"]["max_configs"])
            guards: list = []
            args = inputs(sizes, _maker(torch, device, recipe, variant, guards))
            _emit(channel, READY, {"case": variant})
            phase = "run"
            result = call(module, args)
            if device == "cuda":
                torch.cuda.synchronize()
            saved = {"outputs": _saved(torch, _tensors(result, torch) + _tensors(args, torch), recipe)}
            if recipe == "second-call-after-autotune":
                second = call(module, args)
                if device == "cuda":
                    torch.cuda.synchronize()
                saved["second"] = _saved(torch, _tensors(second, torch) + _tensors(args, torch), recipe)
            if guards:
                poison_ok = [bool(torch.isnan(b[n:]).all() if b.dtype.is_floating_point and variant == "as-is"
                                  else (b[n:] == (-1 if variant == "as-is" else 0)).all())
                             for b, n in guards]
                saved["guards_intact"] = all(poison_ok)
            torch.save(saved, out / f"{variant}.pt")
        record = {"status": "ok"}
    except CannotBuild as error:
        record = {"status": "cannot-build", "why": str(error)}
    except BaseException as error:  # noqa: BLE001 - the defect may be the exception itself
        record = {"status": "error", "phase": phase, "error_type": type(error).__name__,
                  "error_message": str(error)[:2000], "traceback_tail": traceback.format_exc()[-3000:]}
    record["environment"] = environment
    _emit(channel, RESULT, {"case": variant, **record})
    return record


def _max_error(torch, a, b) -> float:
    if a.shape != b.shape:
        return float("inf")
    diff = (a - b).abs()
    both_nan = torch.isnan(a) & torch.isnan(b)
    diff = torch.where(both_nan, torch.zeros_like(diff), diff)
    return float(torch.nan_to_num(diff, nan=float("inf")).max()) if diff.numel() else 0.0


_CRASH = ("illegal", "misaligned", "out of bounds", "invalid argument", "out of resources")


def judge(spec: dict, out: Path) -> dict:
    """The verdict from the runs' records (``<variant>.json``, written by the parent with the
    watchdog's outcome) and their saved outputs."""
    import torch

    records = {p.stem: json.loads(p.read_text()) for p in out.glob("*.json") if p.stem != "verdict"}
    recipe = spec["recipe"]
    cannot = [r for r in records.values() if r.get("outcome") == "cannot-build"]
    if cannot:
        return {"verdict": "cannot build input", "why": cannot[0].get("why", "")}
    as_is = records.get("as-is", {})
    other_name = "fixed" if "fixed" in records else "control"
    other = records.get(other_name)

    def ran(record):
        return record is not None and record.get("outcome") == "ok"

    def failed(record):
        text = (record or {}).get("error_text", "").lower()
        return record is not None and (record.get("outcome") in ("died", "timeout") or
                                        (record.get("outcome") == "error" and any(w in text for w in _CRASH)))

    def load(name):
        return torch.load(out / f"{name}.pt")

    if recipe == "second-call-after-autotune":
        if not ran(as_is):
            return {"verdict": "not reproduced", "why": f"the run {as_is.get('outcome')}: {as_is.get('error_text', '')[:300]}"}
        saved = load("as-is")
        error = max((_max_error(torch, a, b) for a, b in zip(saved["outputs"], saved["second"])), default=0.0)
        return {"verdict": "confirmed" if error > 1e-2 else "not reproduced",
                "why": f"first and second call differ by up to {error:.3g}", "max_abs_diff_first_vs_second": error}
    if other is not None and not ran(other):
        return {"verdict": "not reproduced", "why": f"the {other_name} run did not run cleanly "
                f"({other.get('outcome')}: {other.get('error_text', '')[:300]}), so it shows nothing"}
    if recipe == "grid-axis-65536" or (recipe == "elements-past-int32" and failed(as_is)):
        if failed(as_is):
            return {"verdict": "confirmed", "why": f"the {other_name} run ran; as is: {as_is.get('outcome')}: "
                    f"{as_is.get('error_text', '')[:300]}"}
        return {"verdict": "not reproduced", "why": f"as is: {as_is.get('outcome')}"}
    if not ran(as_is):
        return {"verdict": "not reproduced", "why": f"as is: {as_is.get('outcome')}: {as_is.get('error_text', '')[:300]}"}
    mine, theirs = load("as-is"), load(other_name)
    if recipe == "elements-past-int32":
        head = max(_max_error(torch, a[0], b[0]) for a, b in zip(mine["outputs"], theirs["outputs"]))
        tail = max(_max_error(torch, a[1], b[1]) for a, b in zip(mine["outputs"], theirs["outputs"]))
        shown = tail > max(20 * head, 1e-3)
        return {"verdict": "confirmed" if shown else "not reproduced",
                "why": f"last {EDGE_ROWS} rows differ from the fixed copy's by up to {tail:.3g} (first rows {head:.3g})",
                "max_abs_diff_first_rows": head, "max_abs_diff_last_rows": tail}
    if recipe == "bf16-through-fp16-pointer":
        errors = [_max_error(torch, a, b) for a, b in zip(mine["outputs"], theirs["outputs"])]
        scale = max((float(b.abs().max()) for b in theirs["outputs"] if b.numel()), default=1.0) or 1.0
        error = max(errors, default=0.0)
        return {"verdict": "confirmed" if error > 0.1 * scale else "not reproduced",
                "why": f"bf16 outputs differ from the fp16 control's by up to {error:.3g} (outputs up to {scale:.3g})",
                "max_abs_diff": error}
    if recipe == "length-not-multiple-of-block":
        error = max((_max_error(torch, a, b) for a, b in zip(mine["outputs"][:1], theirs["outputs"][:1])), default=0.0)
        outputs_differ = any(_max_error(torch, a, b) > 0 for a, b in zip(mine["outputs"], theirs["outputs"]))
        wrote = not (mine.get("guards_intact", True) and theirs.get("guards_intact", True))
        verdict = "confirmed" if outputs_differ or wrote else "not reproduced"
        why = ("the kernel stored past a tensor (a guard changed)" if wrote else
               f"outputs depend on the memory after the inputs (differ by up to {error:.3g})" if outputs_differ else
               "outputs identical with NaN and zero guards, and the guards are intact")
        return {"verdict": verdict, "why": why}
    return {"verdict": "not reproduced", "why": f"recipe {recipe} has no judge"}


def main(spec: dict, inputs, call) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    run_parser = sub.add_parser("run")
    run_parser.add_argument("--variant", choices=("as-is", "fixed", "control"), default="as-is")
    run_parser.add_argument("--out", type=Path, required=True)
    run_parser.add_argument("--channel", type=Path)
    judge_parser = sub.add_parser("judge")
    judge_parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.mode == "judge":
        print(json.dumps(judge(spec, args.out)))
        return 0
    channel = open(args.channel, "a", encoding="utf-8") if args.channel else sys.stdout
    record = run(spec, inputs, call, args.variant, args.out, channel)
    if not args.channel:  # run by hand: leave the record where judge looks
        outcome = {"ok": "ok", "cannot-build": "cannot-build"}.get(record["status"], "error")
        text = f"{record.get('error_type', '')}: {record.get('error_message', '')}" if outcome == "error" else ""
        (args.out / f"{args.variant}.json").write_text(json.dumps({**record, "outcome": outcome, "error_text": text}))
    return 0
