"""Shared plumbing for the found-bug confirmations: import a project's own kernel module from a
checkout given on the command line (its code is never copied here), run it on inputs that
trigger the reported defect, compare with a torch reference, and print one JSON line.

Each ``<repo>__<what>.py`` script in this folder defines ``BUG`` (what kernelint reported) and
``confirm(module, torch) -> dict`` and ends with ``main(BUG, confirm)``. Run one with
``python benchmarks/found_bugs/<script>.py --repo /path/to/checkout``; ``run_all.py`` runs every
script in its own process with a timeout (an illegal address poisons the CUDA context).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import traceback
from pathlib import Path


def import_from_checkout(repo: Path, relative: str, as_package: bool = False):
    """Import ``repo/relative``: alone by its path (default; for files that import only torch and
    the DSL), or, with ``as_package``, by its dotted name with the checkout and its ``src/`` on
    sys.path so the file's own package imports resolve."""
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
    return importlib.import_module(".".join(parts))


def max_error(actual, expected) -> float:
    import torch

    diff = (actual.float() - expected.float()).abs()
    return float(torch.nan_to_num(diff, nan=float("inf")).max())


def main(bug: dict, confirm) -> None:
    parser = argparse.ArgumentParser(description=bug["what"])
    parser.add_argument("--repo", type=Path, required=True, help=f"a checkout of {bug['repo']}")
    args = parser.parse_args()
    result = dict(bug)
    try:
        import torch

        module = import_from_checkout(args.repo, bug["file"], bug.get("as_package", False))
        result.update(confirm(module, torch))
        torch.cuda.synchronize()
    except Exception as error:  # the defect may be the exception itself; the script decides
        result.setdefault("outcome", "error")
        result["error"] = f"{type(error).__name__}: {error}"[:2000]
        result["traceback"] = traceback.format_exc()[-3000:]
    print(json.dumps(result))
