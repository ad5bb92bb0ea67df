"""``--statistics``: how many findings each rule has, in the run's ``--format``.

text: ``count  CODE  name  [severity]`` rows, most frequent first; json: an array of
``{"code", "name", "severity", "count", "fixable"}``; github: one notice annotation per row.
SARIF carries findings, not counts, so the CLI refuses ``--statistics --format sarif``.
"""
from __future__ import annotations

import json
from collections import Counter

from kernelint.findings import Finding

FORMATS = ("text", "json", "github")


def _rows(findings: list[Finding]) -> list[tuple[tuple[str, str, str], int, int]]:
    counts = Counter((f.code, f.name, f.severity.value) for f in findings)
    fixable = Counter((f.code, f.name, f.severity.value) for f in findings if f.fix is not None)
    return [(key, n, fixable[key]) for key, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]


def render(findings: list[Finding], fmt: str = "text") -> str:
    rows = _rows(findings)
    if fmt == "json":
        return json.dumps([{"code": code, "name": name, "severity": severity, "count": n, "fixable": fixed}
                           for (code, name, severity), n, fixed in rows], indent=2) + "\n"
    if fmt == "github":
        return "".join(f"::notice title=kernelint statistics::{n} {code} {name} [{severity}]\n"
                       for (code, name, severity), n, _ in rows)
    width = max((len(str(n)) for _, n, _ in rows), default=1)
    lines = [f"{n:>{width}}  {code}  {name}  [{severity}]" for (code, name, severity), n, _ in rows]
    if findings:
        lines.append(f"Found {len(findings)} problem{'s' if len(findings) != 1 else ''}.")
    return "\n".join(lines) + ("\n" if lines else "")
