"""Attach the runs of a pair under other releases to its evidence record (issue 22): each entry
says which release, where it ran, what happened to bad and good, and which raw file holds it.

    python benchmarks/versions/attach_release_runs.py reference_kernels/evidence/KL132.json \
        reference_kernels/evidence/runs/issue22-versions/KL132-cpu-compile-pair.jsonl ...

A ``.json`` argument is a ``kernelint prove --json`` run (its one pair's verdict and outcome); a
``.jsonl`` argument holds compile_on_cpu.py / cute_compile_on_cpu.py lines, grouped by release.
``docs/evidence.md`` and ``kernelint explain`` show the list under the record's own run.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def _from_prove(path: Path) -> list[dict]:
    run = json.loads(path.read_text(encoding="utf-8"))
    env = run.get("environment") or {}
    where = "the CPU (TRITON_INTERPRET=1)" if run.get("interpret") else (env.get("gpu") or "a GPU")
    return [{"release": f"Triton {env.get('triton')}", "where": where, "verdict": pair.get("verdict"),
             "outcome": pair.get("outcome"), "run": path.as_posix()} for pair in run.get("pairs", [])]


def _short(line: dict) -> str:
    if "libcuda.so cannot found" in str(line.get("error", "")):
        return ("passed the front end and code generation; stopped only building the launcher stub "
                "(no libcuda on a machine without a GPU)")
    if line.get("status") == "ok":
        return "compiled" + (f" (warned: {'; '.join(line['warnings'])})" if line.get("warnings") else "")
    error = " ".join(str(line.get("error", "")).split())
    for marker in ("NameError(", "AttributeError(", "TypeError: ", "AttributeError: ", "AssertionError: "):
        if marker in error:
            error = error[error.index(marker):]
            break
    return f"failed at {line.get('stage', 'trace')}: {error[:170]}"


def _from_lines(path: Path) -> list[dict]:
    by_release: dict[str, list[dict]] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        release = f"Triton {line['triton']}" if "triton" in line else f"CuTe DSL {line.get('cutlass_dsl') or '4.2.1'}"
        by_release.setdefault(release, []).append(line)
    entries = []
    for release, lines in by_release.items():
        parts = [f"{Path(line['file']).name}: {_short(line)}" for line in lines]
        entries.append({"release": release, "where": "the CPU (compiled for sm_90, not run)",
                        "outcome": "; ".join(parts), "run": path.as_posix()})
    return entries


def main(record_path: str, *runs: str) -> None:
    record_file = Path(record_path)
    record = json.loads(record_file.read_text(encoding="utf-8"))
    entries = []
    for run in runs:
        path = Path(run)
        entries += _from_prove(path) if path.suffix == ".json" else _from_lines(path)
    record["other_releases"] = entries
    record_file.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
