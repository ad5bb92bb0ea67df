"""A record's measurement in the few words that stand next to the seed's claim (issue 24): the
README's rules table and the header of ``kernelint explain`` show what was measured, not only the
verdict, so a pair that reproduced far below its claim (or not on every shape) says so where the
claim is read. Perf records give the median bad/good ratio, its range over the timed shapes and
the shapes where the bad kernel was faster; the other classes give the record's outcome."""
from __future__ import annotations

import re

#: Terminal colour codes some DSL errors carry in their message (CuTe DSL's diagnostics).
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def timed_ratios(record: dict) -> list[float]:
    """The bad/good time ratio of each timed (non-control) case that has one."""
    return [case["ratio"] for case in record.get("cases") or []
            if not case.get("control") and isinstance(case.get("ratio"), (int, float))]


def perf_range(record: dict) -> str | None:
    """``median 1.68x (0.53-57.63x over 5 shapes; bad faster on 2)`` for a measured perf record."""
    if record.get("evidence_class") != "perf" or not isinstance(record.get("median_ratio"), (int, float)):
        return None
    ratios = timed_ratios(record)
    if not ratios:
        return None
    text = f"median {record['median_ratio']:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}x over {len(ratios)} shapes"
    faster = sum(ratio < 1 for ratio in ratios)
    return text + (f"; bad faster on {faster})" if faster else ")")


def measured(record: dict) -> str:
    """The verdict with what was measured: a perf record's range, another record's outcome."""
    verdict = str(record.get("verdict", "unknown"))
    detail = perf_range(record) or " ".join(_ANSI.sub("", str(record.get("outcome") or "")).split())
    return f"{verdict}, {detail}" if detail else verdict
