"""Measured evidence records (``reference_kernels/evidence/<CODE>.json``), written by
``kernelint prove`` on a GPU and committed. A rule's doc shows its record."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def load_record(code: str) -> dict | None:
    try:
        text = resources.files("kernelint.reference_kernels").joinpath("evidence", f"{code}.json").read_text("utf-8")
    except (FileNotFoundError, OSError, ModuleNotFoundError):
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def describe(record: dict) -> str:
    """Markdown lines for a record: outcome, numbers, machine and versions."""
    env = record.get("environment", {})
    lines = [f"**Outcome:** {record.get('verdict', record.get('outcome', 'unknown'))}."]
    if record.get("summary"):
        lines.append("")
        lines.append(record["summary"])
    machine = ", ".join(
        f"{key} {env[key]}" for key in ("gpu", "compute_capability", "driver", "torch", "triton", "cutlass_dsl")
        if env.get(key)
    )
    if machine:
        lines.append("")
        lines.append(f"Measured on {machine}, {record.get('date', 'date unknown')}, by `{record.get('command', 'kernelint prove')}`.")
    return "\n".join(lines)
