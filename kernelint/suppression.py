"""Inline suppressions: ``# noqa: KL101`` and ``# kernelint: disable=name-or-code``.

A ``# noqa`` code also silences the codes it is a prefix of, as in flake8 (``# noqa: KL1``).
``# kernelint: disable=X`` silences X on its own line when it trails code, and on the next
line when the comment stands alone; ``# kernelint: disable-file=X`` silences X in the file.
A bare ``# noqa`` silences every finding on its line (flake8's convention).
"""
from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
#: A ``# noqa`` directive in a comment's text, its codes in the ``codes`` group (None: bare).
NOQA_COMMENT = _NOQA
_DIRECTIVE = re.compile(r"#\s*kernelint:\s*(?P<kind>disable(?:-file)?)\s*=\s*(?P<names>[\w\-]+(?:\s*,\s*[\w\-]+)*)")


@dataclass
class Suppression:
    """One suppressing token: a code or name in a comment, or a bare noqa."""

    line: int  # where the comment is
    column: int
    key: str | None  # rule code or name; None for a bare ``# noqa``
    scope: str  # "line", "file"
    target_line: int  # the line it silences (ignored for file scope)
    #: True for ``# kernelint: ...``: every key there is meant for kernelint, while a ``# noqa``
    #: may list other tools' codes.
    ours: bool = False
    used: bool = field(default=False)

    def covers(self, finding) -> bool:
        if self.scope == "line" and self.target_line != finding.line:
            return False
        if self.key is None:
            return True
        if self.ours:
            return self.key.upper() == finding.code or self.key.lower() == finding.name
        return finding.code.startswith(self.key)  # flake8 matches noqa codes as prefixes


def _comments(source: str):
    """(line, column, text, stands_alone) of every comment, read with the tokenizer so that a
    ``#`` inside a string never counts."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return
    for token in tokens:
        if token.type == tokenize.COMMENT:
            line, column = token.start
            stands_alone = token.line[:column].strip() == ""
            yield line, column, token.string, stands_alone


def _next_code_line(lines: list[str], after: int) -> int:
    for number in range(after + 1, len(lines) + 1):
        text = lines[number - 1].strip()
        if text and not text.startswith("#"):
            return number
    return after + 1


def parse_suppressions(source: str) -> list[Suppression]:
    if "noqa" not in source.lower() and "kernelint:" not in source:
        return []
    lines = source.splitlines()
    found: list[Suppression] = []
    for line, column, text, stands_alone in _comments(source):
        for match in _NOQA.finditer(text):
            codes = match.group("codes")
            if codes is None:
                found.append(Suppression(line, column, None, "line", line))
            else:
                for code in re.split(r"[,\s]+", codes.strip()):
                    found.append(Suppression(line, column, code.upper(), "line", line))
        for match in _DIRECTIVE.finditer(text):
            scope = "file" if match.group("kind") == "disable-file" else "line"
            target = _next_code_line(lines, line) if stands_alone and scope == "line" else line
            for name in re.split(r"\s*,\s*", match.group("names").strip()):
                found.append(Suppression(line, column, name, scope, target, ours=True))
    return found
