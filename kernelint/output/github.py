"""GitHub Actions workflow commands: findings appear as annotations on the pull request."""
from __future__ import annotations

from kernelint.findings import Finding, Severity

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(findings: list[Finding], rules, **_) -> str:
    lines = []
    for f in findings:
        properties = ",".join([
            f"file={_escape_property(f.path)}", f"line={f.line}", f"endLine={f.end_line}",
            f"col={f.column}", f"endColumn={f.end_column}",
            f"title={_escape_property(f'{f.code} {f.name}')}",
        ])
        lines.append(f"::{_LEVEL[f.severity]} {properties}::{_escape_data(f'{f.code} {f.message}')}")
    return "\n".join(lines) + ("\n" if lines else "")
