"""GitHub Actions workflow commands: findings appear as annotations on the pull request."""
from __future__ import annotations

from kernelint.findings import Finding, Severity
from kernelint.sources import Sources, character_column

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(findings: list[Finding], rules, *, sources: Sources | None = None, **_) -> str:
    """Columns are given in characters, as GitHub counts them (findings count UTF-8 bytes). An
    annotation has one place: a finding's other sites are counted in its message."""
    sources = sources or Sources()
    lines = []
    for f in findings:
        column = character_column(sources.line(f.path, f.line), f.column - 1) + 1
        end_column = character_column(sources.line(f.path, f.end_line), f.end_column - 1) + 1
        properties = ",".join([
            f"file={_escape_property(f.path)}", f"line={f.line}", f"endLine={f.end_line}",
            f"col={column}", f"endColumn={end_column}",
            f"title={_escape_property(f'{f.code} {f.name}')}",
        ])
        lines.append(f"::{_LEVEL[f.severity]} {properties}::{_escape_data(f'{f.code} {f.shown_message}')}")
    return "\n".join(lines) + ("\n" if lines else "")
