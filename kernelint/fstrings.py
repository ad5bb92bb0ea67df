"""Whether the f-strings on one line are well formed under Python 3.12's grammar (PEP 701).

Python 3.11's parser rejects valid 3.12 f-strings (``f"{", ".join(names)}"``: the quote reused
inside the braces, backslashes, comments) with the same messages it gives a broken f-string
(``f"{x"``). kernelint reports the first as valid code it cannot read (at info) and the second
as a syntax error; this scanner tells them apart by reading the line as 3.12 would: replacement
fields nest to any depth and may hold strings with any quote.
"""
from __future__ import annotations

import re

_PREFIXED_QUOTE = re.compile(r"""(?i)(?<![\w])([rbuf]{0,2})('''|\"\"\"|'|")""")
_QUOTE_AT = re.compile(r"""(?i)([rbuf]{0,2})('''|\"\"\"|'|")""")


def malformed(line: str) -> bool | None:
    """True when an f-string on ``line`` is broken under PEP 701 too (unbalanced braces, an
    unterminated nested string); False when every f-string on it is well formed; None when the
    line cannot tell (a string continues past it)."""
    i, found_fstring = 0, False
    while i < len(line):
        if line[i] == "#":
            break
        match = _PREFIXED_QUOTE.match(line, i) if line[i] in "'\"rRbBuUfF" else None
        if match is None or (i > 0 and (line[i - 1].isalnum() or line[i - 1] == "_")):
            i += 1
            continue
        prefix, quote = match.group(1).lower(), match.group(2)
        end = _string_end(line, match.end(), quote, "r" in prefix, "f" in prefix)
        if end is _UNFINISHED:
            return None
        if end is None:
            return True if "f" in prefix else None
        found_fstring = found_fstring or "f" in prefix
        i = end
    return False if found_fstring else None


_UNFINISHED = -1  # the string runs past the end of the line (a triple-quoted one)


def _string_end(text: str, i: int, quote: str, raw: bool, formatted: bool):
    """Index just past the string whose body starts at ``i``; None if malformed; _UNFINISHED."""
    while i < len(text):
        if text.startswith(quote, i):
            return i + len(quote)
        char = text[i]
        if char == "\\" and not raw:
            i += 2
            continue
        if formatted and char == "{":
            if text.startswith("{{", i):
                i += 2
                continue
            i = _field_end(text, i + 1)
            if i is None or i == _UNFINISHED:
                return i
            continue
        if formatted and char == "}":
            if text.startswith("}}", i):
                i += 2
                continue
            return None
        i += 1
    return _UNFINISHED if len(quote) == 3 else None


def _field_end(text: str, i: int):
    """Index just past the ``}`` closing a replacement field whose expression starts at ``i``."""
    depth = 0
    while i < len(text):
        char = text[i]
        if char in "([{":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth < 0:
                return None
        elif char == "}":
            if depth == 0:
                return i + 1
            depth -= 1
        elif char == ":" and depth == 0:  # the format spec: literal text with nested fields
            return _string_end(text, i + 1, "}", True, True)
        elif char == "#":
            return _UNFINISHED  # a comment: the field goes on over the next lines
        elif char in "'\"":
            match = _QUOTE_AT.match(text, _prefix_start(text, i))
            prefix, quote = match.group(1).lower(), match.group(2)
            end = _string_end(text, match.end(), quote, "r" in prefix, "f" in prefix)
            if end is None or end == _UNFINISHED:
                return end
            i = end
            continue
        i += 1
    return _UNFINISHED


def _prefix_start(text: str, i: int) -> int:
    start = i
    while start > 0 and i - start < 2 and text[start - 1] in "rRbBuUfF":
        start -= 1
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return i  # the letters end a name (``x"``), not a prefix
    return start
