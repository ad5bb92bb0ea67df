"""``path:line:col: CODE message`` — the format editors and humans read."""
from __future__ import annotations

from kernelint.findings import Finding


def render(findings: list[Finding], rules) -> str:
    lines = [f"{f.path}:{f.line}:{f.column}: {f.code} {f.message} [{f.name}]" for f in findings]
    if findings:
        count = len(findings)
        lines.append(f"Found {count} problem{'s' if count != 1 else ''}.")
    return "\n".join(lines) + ("\n" if lines else "")
