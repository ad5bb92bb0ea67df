"""``# noqa: KLxxx`` added where findings are: ``kernelint check --add-noqa`` and the language
server's "suppress" code action.

The comment goes on the line a finding starts on, the line ``# noqa`` is matched against. A
line that already has a ``# noqa: ...`` gets the new codes appended to the ones it names (other
tools' codes included); any other comment is kept and the directive follows it. A line that
ends inside a string or with a backslash continuation cannot take a comment: it is skipped and
said so. Tool findings (KL001 syntax error, KL002 file not checked, KL003 unused suppression)
are not silenced this way: they say something about the run or the comments themselves.
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from kernelint.findings import Edit, Finding
from kernelint.suppression import NOQA_COMMENT

#: Codes a noqa is never added for.
TOOL_CODES = frozenset({"KL001", "KL002", "KL003"})


class CannotAnnotate(Exception):
    """The line cannot take a comment; the message says why."""


@dataclass
class _Layout:
    """Per line: its comment token (start column in characters, text), and the lines that end
    inside a token (a string running on to the next line)."""

    comments: dict[int, tuple[int, str]] = field(default_factory=dict)
    open_ends: set[int] = field(default_factory=set)


def _layout(source: str) -> _Layout:
    layout = _Layout()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source, newline="").readline))
    except (tokenize.TokenError, SyntaxError, IndentationError) as error:
        raise CannotAnnotate(f"the file does not tokenize ({error})") from None
    for token in tokens:
        if token.type == tokenize.COMMENT:
            layout.comments[token.start[0]] = (token.start[1], token.string)
        elif token.end[0] > token.start[0] and token.type not in (tokenize.NL, tokenize.NEWLINE):
            layout.open_ends.update(range(token.start[0], token.end[0]))
    return layout


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(source: str) -> list[str]:
    """Lines with their endings, broken where ``ast`` breaks them (\n, \r\n, \r only)."""
    return _LINE.findall(source)


def _byte_column(text: str, character: int) -> int:
    return len(text[:character].encode("utf-8"))


def _edit(lines: list[str], layout: _Layout, number: int, codes: list[str]) -> Edit | None:
    """The edit that makes line ``number`` carry ``# noqa`` for ``codes``; None when it already
    does."""
    if not 0 < number <= len(lines):
        raise CannotAnnotate("the line is past the end of the file")
    text = lines[number - 1].rstrip("\r\n")
    if number in layout.open_ends:
        raise CannotAnnotate("the line ends inside a string that continues on the next line")
    comment = layout.comments.get(number)
    if comment is None and text.rstrip().endswith("\\"):
        raise CannotAnnotate("the line continues with a backslash")
    if comment is not None:
        start, comment_text = comment
        match = NOQA_COMMENT.search(comment_text)
        if match is not None:
            if match.group("codes") is None:
                return None  # a bare noqa silences the line already
            named = [c.strip() for c in match.group("codes").replace(",", " ").split()]
            missing = [code for code in codes if not any(code.startswith(n.upper()) for n in named)]
            if not missing:
                return None
            begin, end = start + match.start("codes"), start + match.end("codes")
            merged = ", ".join([*named, *missing])
            return Edit(number, _byte_column(text, begin), number, _byte_column(text, end), merged)
    content = text.rstrip()
    column = _byte_column(text, len(content))
    return Edit(number, column, number, _byte_column(text, len(text)), f"  # noqa: {', '.join(codes)}")


def noqa_edit(source: str, line: int, codes) -> Edit | None:
    """One line's edit (``ast`` positions: 1-based line, UTF-8 byte columns); None when the line
    is already silenced for ``codes``. Raises CannotAnnotate when it cannot take a comment."""
    return _edit(split_lines(source), _layout(source), line, sorted(set(codes)))


def _apply(lines: list[str], edit: Edit) -> None:
    text = lines[edit.line - 1]
    body = text.rstrip("\r\n")
    ending = text[len(body):]
    raw = body.encode("utf-8")
    lines[edit.line - 1] = (raw[:edit.col].decode("utf-8") + edit.replacement
                            + raw[edit.end_col:].decode("utf-8") + ending)


@dataclass
class NoqaResult:
    added: int = 0
    files: int = 0
    #: (path, line, why) of lines that could not take a comment.
    skipped: list[tuple[str, int, str]] = field(default_factory=list)


def add_noqa(findings: list[Finding]) -> NoqaResult:
    """Add the directives to the files in place, keeping their encoding and line endings."""
    from kernelint.fixes import _read

    result = NoqaResult()
    by_file: dict[str, dict[int, set[str]]] = {}
    for f in findings:
        if f.code not in TOOL_CODES:
            by_file.setdefault(f.path, {}).setdefault(f.line, set()).add(f.code)
    for path, by_line in sorted(by_file.items()):
        read = _read(path)
        if read is None:
            result.skipped.extend((path, line, "the file cannot be read") for line in sorted(by_line))
            continue
        source, encoding = read
        lines = split_lines(source)
        try:
            layout = _layout(source)
        except CannotAnnotate as error:
            result.skipped.extend((path, line, str(error)) for line in sorted(by_line))
            continue
        changed = 0
        for line, codes in sorted(by_line.items()):
            try:
                edit = _edit(lines, layout, line, sorted(codes))
            except CannotAnnotate as error:
                result.skipped.append((path, line, str(error)))
                continue
            if edit is not None:
                _apply(lines, edit)
                changed += 1
        if changed:
            with open(Path(path), "w", encoding=encoding, newline="") as handle:
                handle.write("".join(lines))
            result.added += changed
            result.files += 1
    return result
