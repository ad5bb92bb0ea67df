"""``path:line:col: CODE message [name]`` — the format editors and humans read; optionally
with the source line and a caret under the range (``--show-source``) and ANSI colour."""
from __future__ import annotations

import os
from collections import Counter

from kernelint.findings import Finding, Severity
from kernelint.sources import character_column

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
_SEVERITY_COLOUR = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}


def use_colour(stream) -> bool:
    """``FORCE_COLOR`` (non-empty) forces colour, ``NO_COLOR`` (non-empty) forbids it;
    otherwise colour only on a terminal (https://no-color.org, https://force-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def _paint(text: str, *codes: str, colour: bool) -> str:
    return "".join(codes) + text + _RESET if colour else text


def _caret(finding: Finding, line: str) -> str:
    start = character_column(line, max(finding.column - 1, 0))
    end = character_column(line, finding.end_column - 1) if finding.end_line == finding.line else len(line.rstrip())
    prefix = "".join(ch if ch == "\t" else " " for ch in line[:start])
    return prefix + "^" * max(end - start, 1)


def render(findings: list[Finding], rules, *, show_source: bool = False, colour: bool = False,
           sources=None, **_) -> str:
    lines = []
    for f in findings:
        location = _paint(f"{f.path}:{f.line}:{f.column}:", _BOLD, colour=colour)
        code = _paint(f.code, _BOLD, _SEVERITY_COLOUR[f.severity], colour=colour)
        lines.append(f"{location} {code} {f.message} {_paint(f'[{f.name}]', _DIM, colour=colour)}")
        if show_source and sources is not None:
            text = sources.line(f.path, f.line)
            if text.strip():
                lines.append(f"  {text.rstrip()}")
                lines.append("  " + _paint(_caret(f, text), _SEVERITY_COLOUR[f.severity], colour=colour))
    if findings:
        count = len(findings)
        lines.append(f"Found {count} problem{'s' if count != 1 else ''}.")
        lines.extend(_fixable(findings))
    return "\n".join(lines) + ("\n" if lines else "")


def _fixable(findings: list[Finding]) -> list[str]:
    safe = sum(1 for f in findings if f.fix is not None and f.fix.safe)
    unsafe = sum(1 for f in findings if f.fix is not None and not f.fix.safe)
    if not safe and not unsafe:
        return []
    parts = [f"{safe} fixable with --fix"] if safe else []
    if unsafe:
        parts.append(f"{unsafe} {'more ' if safe else ''}with --fix --unsafe-fixes")
    return [f"({', '.join(parts)}; --show-fixes shows the changes)"]


def render_statistics(findings: list[Finding], rules) -> str:
    """One row per code, most frequent first: count, code, name, severity."""
    counts = Counter((f.code, f.name, f.severity.value) for f in findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    width = max((len(str(n)) for n in counts.values()), default=1)
    lines = [f"{n:>{width}}  {code}  {name}  [{severity}]" for (code, name, severity), n in rows]
    if findings:
        lines.append(f"Found {len(findings)} problem{'s' if len(findings) != 1 else ''}.")
    return "\n".join(lines) + ("\n" if lines else "")
