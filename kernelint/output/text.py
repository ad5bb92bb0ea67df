"""The formats people read on a terminal.

``concise``: one line a finding, ``path:line:col: CODE message [name]`` (what editors' problem
matchers and scripts read; ``--show-source`` adds the line and a caret under the range).

``full`` (ruff's full format): a headline ``path:line:col: CODE [severity] message``, a code
frame with the finding's span underlined, then notes: ``help:`` with the fix, when the rule
offers one, and ``evidence:`` with what the rule's reference pair measured, in one line. A
finding's block is built from parts (``_headline``, ``_frame``, ``_notes``) so that further
notes (related sites, facts) are one more entry in ``_notes``.
"""
from __future__ import annotations

import os
from collections import Counter

from kernelint.findings import Finding, Severity
from kernelint.sources import character_column
from kernelint.terminal import shown

STYLES = ("full", "concise")
COLOR_CHOICES = ("auto", "always", "never")

_RESET = "\033[0m"
_BOLD = "\033[1m"
_DIM = "\033[2m"
_GUTTER = "\033[1;34m"
_HELP = "\033[1;36m"
_SEVERITY_COLOUR = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.INFO: "\033[36m"}
#: Lines of source shown above and below a finding's span in the full format.
_CONTEXT_LINES = 1
#: A span longer than this many lines is shown by its first and last lines only.
_MAX_SPAN_LINES = 6
_TAB_WIDTH = 4


def use_colour(stream, choice: str = "auto") -> bool:
    """``--color always|never`` decides; with ``auto``, ``NO_COLOR`` (non-empty) forbids colour,
    ``FORCE_COLOR`` (non-empty) forces it, and otherwise colour only on a terminal that is not
    ``TERM=dumb`` (https://no-color.org, https://force-color.org)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def default_style(stream, writing_to_file: bool) -> str:
    """``full`` for a person at a terminal, ``concise`` for a pipe, a file or a program."""
    isatty = getattr(stream, "isatty", None)
    return "full" if not writing_to_file and isatty is not None and isatty() else "concise"


def _paint(text: str, *codes: str, colour: bool) -> str:
    return "".join(codes) + text + _RESET if colour and text else text


def _printable(text: str) -> str:
    """Source text safe to print: control characters (an escape sequence in a string literal)
    shown as U+FFFD instead of acting on the terminal."""
    return "".join(ch if ch == "\t" or (ord(ch) >= 32 and ord(ch) != 127) else "\ufffd" for ch in text)


def _caret(finding: Finding, line: str) -> str:
    start = character_column(line, max(finding.column - 1, 0))
    end = character_column(line, finding.end_column - 1) if finding.end_line == finding.line else len(line.rstrip())
    prefix = "".join(ch if ch == "\t" else " " for ch in line[:start])
    return prefix + "^" * max(end - start, 1)


def _fixable(findings: list[Finding]) -> list[str]:
    safe = sum(1 for f in findings if f.fix is not None and f.fix.safe)
    unsafe = sum(1 for f in findings if f.fix is not None and not f.fix.safe)
    if not safe and not unsafe:
        return []
    parts = [f"{safe} fixable with --fix"] if safe else []
    if unsafe:
        parts.append(f"{unsafe} {'more ' if safe else ''}with --fix --unsafe-fixes")
    return [f"({', '.join(parts)}; --show-fixes shows the changes)"]


def _summary(findings: list[Finding]) -> list[str]:
    if not findings:
        return []
    count = len(findings)
    return [f"Found {count} problem{'s' if count != 1 else ''}.", *_fixable(findings)]


# --- concise ---------------------------------------------------------------------------------

def concise_line(f: Finding, colour: bool = False) -> str:
    location = _paint(f"{shown(f.path)}:{f.line}:{f.column}:", _BOLD, colour=colour)
    code = _paint(f.code, _BOLD, _SEVERITY_COLOUR[f.severity], colour=colour)
    return f"{location} {code} {f.shown_message} {_paint(f'[{f.name}]', _DIM, colour=colour)}"


def fact_lines(f: Finding) -> list[str]:
    """``--show-facts``: why the finding fires, one fact a line, with where it was read."""
    out = []
    for fact in f.facts:
        where = ""
        if fact.site is not None:
            where = f" ({fact.site.line})" if fact.site.path == f.path else f" ({shown(fact.site.path)}:{fact.site.line})"
        out.append(f"{fact.text}{where}")
    return out


def _concise(findings: list[Finding], show_source: bool, colour: bool, sources, show_facts: bool = False) -> list[str]:
    lines = []
    for f in findings:
        lines.append(concise_line(f, colour))
        if show_facts:
            lines.extend(f"  {_paint('why:', _HELP, colour=colour)} {fact}" for fact in fact_lines(f))
        if show_source and sources is not None:
            text = sources.line(f.path, f.line)
            if text.strip():
                lines.append(f"  {_printable(text.rstrip())}")
                lines.append("  " + _paint(_caret(f, text), _SEVERITY_COLOUR[f.severity], colour=colour))
    return lines


# --- full ------------------------------------------------------------------------------------

def _headline(f: Finding, colour: bool) -> str:
    tint = _SEVERITY_COLOUR[f.severity]
    location = _paint(f"{shown(f.path)}:{f.line}:{f.column}:", _BOLD, colour=colour)
    return (f"{location} {_paint(f.code, _BOLD, tint, colour=colour)} "
            f"{_paint(f'[{f.severity.value}]', tint, colour=colour)} {f.message}")


def _shown_lines(f: Finding, count: int) -> list[int | None]:
    """Line numbers of the frame (None: an elision), the span and its context."""
    first = max(1, f.line - _CONTEXT_LINES)
    last_of_span = min(max(f.end_line, f.line), count)
    last = min(count, last_of_span + _CONTEXT_LINES)
    numbers: list[int | None] = list(range(first, last + 1))
    if last_of_span - f.line + 1 > _MAX_SPAN_LINES:
        head = list(range(first, f.line + 3))
        tail = list(range(last_of_span - 1, last + 1))
        numbers = [*head, None, *tail]
    return numbers


def _underline(f: Finding, text: str) -> tuple[int, int]:
    """Display columns (tabs expanded) of the underline on the finding's first line."""
    start = character_column(text, max(f.column - 1, 0))
    if f.end_line == f.line:
        end = character_column(text, f.end_column - 1)
    else:
        end = len(text.rstrip())
    begin = len(text[:start].expandtabs(_TAB_WIDTH))
    width = len(text[:max(end, start)].expandtabs(_TAB_WIDTH)) - begin
    return begin, max(width, 1)


def _gutter_width(numbers: list[int | None]) -> int:
    return len(str(max(n for n in numbers if n is not None)))


def _frame(f: Finding, sources, colour: bool) -> list[str]:
    lines = sources.lines(f.path) if sources is not None else []
    if not lines or f.line > len(lines):
        return []
    numbers = _shown_lines(f, len(lines))
    width = _gutter_width(numbers)
    bar = _paint(" " * width + " |", _GUTTER, colour=colour)
    out = [bar]
    for number in numbers:
        if number is None:
            out.append(_paint(f"{'...'[:width]:>{width}} |", _GUTTER, colour=colour))
            continue
        text = lines[number - 1]
        gutter = _paint(f"{number:>{width}} |", _GUTTER, colour=colour)
        shown = _printable(text.rstrip().expandtabs(_TAB_WIDTH))
        out.append(f"{gutter} {shown}" if shown else gutter)
        if number == f.line:
            begin, length = _underline(f, text)
            marks = _paint("^" * length + " " + f.name, _BOLD, _SEVERITY_COLOUR[f.severity], colour=colour)
            out.append(f"{bar} {' ' * begin}{marks}")
    out.append(bar)
    return out


def _notes(f: Finding, show_facts: bool = False) -> list[tuple[str, str]]:
    """(label, text) lines under the frame: the other sites of the finding's cause, why it fires
    (``--show-facts``), the fix, the rule's measured evidence."""
    from kernelint.evidence import one_line
    from kernelint.findings import related_note
    from kernelint.rules import find_rule

    notes = []
    if f.related:
        notes.append(("same cause", related_note(f.related, f.path).strip(" ()").removeprefix("and ")))
    if show_facts:
        notes.extend(("why", fact) for fact in fact_lines(f))
    if f.fix is not None:
        how = "kernelint check --fix" if f.fix.safe else "unsafe, may change behaviour: kernelint check --fix --unsafe-fixes"
        notes.append(("help", f"{f.fix.title} ({how})"))
    rule = find_rule(f.code)
    evidence = one_line(rule) if rule is not None else None
    if evidence:
        notes.append(("evidence", evidence))
    return notes


def full_block(f: Finding, sources, colour: bool = False, show_facts: bool = False) -> list[str]:
    """One finding in the full format: headline, code frame, notes."""
    frame = _frame(f, sources, colour)
    lines = [_headline(f, colour), *frame]
    count = len(sources.lines(f.path)) if frame else 0
    pad = " " * (_gutter_width(_shown_lines(f, count)) + 1 if frame else 1)
    for label, text in _notes(f, show_facts):
        lines.append(f"{pad}{_paint('=', _GUTTER, colour=colour)} {_paint(label + ':', _HELP, colour=colour)} {text}")
    return lines


def render(findings: list[Finding], rules, *, style: str = "concise", show_source: bool = False,
           colour: bool = False, sources=None, show_facts: bool = False, **_) -> str:
    if style == "full":
        lines = []
        for f in findings:
            lines.extend(full_block(f, sources, colour, show_facts))
            lines.append("")
    else:
        lines = _concise(findings, show_source, colour, sources, show_facts)
    lines.extend(_summary(findings))
    return "\n".join(lines) + ("\n" if lines else "")
