"""Shared plumbing for the found-bug confirmations: import a project's own kernel module from a
checkout given on the command line (its code is never copied here), run it on inputs that
trigger the reported defect, compare with a torch reference, and print one JSON line.

Each ``<repo>__<what>.py`` script in this folder defines ``BUG`` (what kernelint reported) and
``confirm(module, torch) -> dict`` and ends with ``main(BUG, confirm)``. Run one with
``python benchmarks/found_bugs/<script>.py --repo /path/to/checkout``; ``run_all.py`` runs every
script in its own process with a timeout (an illegal address poisons the CUDA context).

``BUG["fix"]`` is the control (issue 24): the edits that fix the reported construct, each
``{"line": N, "old": text, "new": text}`` on one line of ``BUG["file"]`` (the flagged line, or the
one line that feeds it, ``BUG["fix_why"]`` says which). ``--fixed`` copies the checkout to a
temporary folder, applies the edits there (each ``old`` must occur on its line exactly once) and
runs the same confirmation on the copy: the defect showing as is and not after the fix is what
shows its cause. The checkout itself is never changed.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import traceback
import types
from pathlib import Path


def import_from_checkout(repo: Path, relative: str, as_package: bool = False, skip_init: tuple[str, ...] = ()):
    """Import ``repo/relative``: alone by its path (default; for files that import only torch and
    the DSL), or, with ``as_package``, by its dotted name with the checkout and its ``src/`` on
    sys.path so the file's own package imports resolve. ``skip_init`` names packages whose
    ``__init__`` would load compiled extensions the kernel does not need: they are entered as
    plain namespaces."""
    path = repo / relative
    if not as_package:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        return module
    parts = Path(relative).with_suffix("").parts
    if parts[0] == "src":
        parts = parts[1:]
    for root in (repo / "src", repo):
        sys.path.insert(0, str(root.resolve()))
    for package in skip_init:
        namespace = types.ModuleType(package)
        base = repo / "src" if (repo / "src" / package).is_dir() else repo
        namespace.__path__ = [str(base / package)]
        sys.modules[package] = namespace
    return importlib.import_module(".".join(parts))


def rows_past_int32(cols: int, extra: int = 256) -> int:
    """A row count whose last ``extra`` rows start past 2^31 elements of a ``cols``-wide matrix."""
    return (2**31 + cols - 1) // cols + extra


def tail_outcome(run, reference, extra: int = 256) -> dict:
    """Run ``run()`` -> output; compare its last ``extra`` rows and its first ``extra`` rows with
    ``reference(rows)``. An illegal address is the defect showing; so are wrong tail rows."""
    import torch

    try:
        out = run()
        torch.cuda.synchronize()
    except Exception as error:
        text = f"{type(error).__name__}: {error}"[:500]
        return {"outcome": "confirmed" if "illegal" in text.lower() or "misaligned" in text.lower() else "error",
                "error": text}
    head = max_error(out[:extra], reference(slice(0, extra)))
    tail = max_error(out[-extra:], reference(slice(-extra, None)))
    # Rows before the wrap match to rounding; rows past it come from other rows (or garbage).
    return {"outcome": "confirmed" if tail > max(20 * head, 1e-3) else "not-reproduced",
            "max_abs_error_first_rows": head, "max_abs_error_rows_past_2^31": tail}


def max_error(actual, expected) -> float:
    import torch

    diff = (actual.float() - expected.float()).abs()
    return float(torch.nan_to_num(diff, nan=float("inf")).max())


def apply_fix(repo: Path, bug: dict, into: Path) -> Path:
    """A copy of ``repo`` in ``into`` with ``bug["fix"]`` applied to ``bug["file"]``; raises when an
    edit does not apply (its line no longer holds ``old`` exactly once)."""
    copy = into / repo.name
    shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git", "__pycache__"), symlinks=True)
    path = copy / bug["file"]
    lines = path.read_text(encoding="utf-8").split("\n")
    for edit in bug["fix"]:
        line = lines[edit["line"] - 1]
        if line.count(edit["old"]) != 1:
            raise ValueError(f"{bug['file']}:{edit['line']} does not hold {edit['old']!r} exactly once: "
                             f"{line.strip()!r}")
        lines[edit["line"] - 1] = line.replace(edit["old"], edit["new"])
    path.write_text("\n".join(lines), encoding="utf-8")
    return copy


def main(bug: dict, confirm) -> None:
    parser = argparse.ArgumentParser(description=bug["what"])
    parser.add_argument("--repo", type=Path, required=True, help=f"a checkout of {bug['repo']}")
    parser.add_argument("--fixed", action="store_true",
                        help="run on a temporary copy with BUG['fix'] applied (the control)")
    args = parser.parse_args()
    result = dict(bug, variant="fixed" if args.fixed else "as-is")
    with tempfile.TemporaryDirectory(prefix="found-bug-fixed-") as scratch:
        try:
            import torch

            repo = apply_fix(args.repo, bug, Path(scratch)) if args.fixed else args.repo
            module = import_from_checkout(repo, bug["file"], bug.get("as_package", False),
                                          tuple(bug.get("skip_init", ())))
            result.update(confirm(module, torch))
            torch.cuda.synchronize()
        except Exception as error:  # the defect may be the exception itself; the script decides
            result.setdefault("outcome", "error")
            result["error"] = f"{type(error).__name__}: {error}"[:2000]
            result["traceback"] = traceback.format_exc()[-3000:]
    print(json.dumps(result))


def grid_outcome(run_at, over: int, under: int) -> dict:
    """Run ``run_at(n)`` with a grid axis of ``under`` (<= 65535) programs and of ``over`` (> 65535):
    the defect shows when the first runs and the second fails to launch."""
    import torch

    result = {}
    for label, n in (("under", under), ("over", over)):
        try:
            run_at(n)
            torch.cuda.synchronize()
            result[f"grid_axis_{n}"] = "ran"
        except Exception as error:
            result[f"grid_axis_{n}"] = f"{type(error).__name__}: {error}"[:300]
    ran_under = result[f"grid_axis_{under}"] == "ran"
    failed_over = result[f"grid_axis_{over}"] != "ran"
    result["outcome"] = "confirmed" if ran_under and failed_over else "not-reproduced"
    return result
