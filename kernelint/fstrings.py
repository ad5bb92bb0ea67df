"""Python 3.12's f-strings (PEP 701) read with the standard library of an older Python.

Python 3.11's parser rejects valid 3.12 f-strings (``f"{", ".join(names)}"``: the quote reused
inside the braces, backslashes, comments) with the same messages it gives a broken f-string
(``f"{x"``). kernelint reports the first as valid code it cannot read (at info) and the second
as a syntax error; this scanner tells them apart by reading the line as 3.12 would: replacement
fields nest to any depth and may hold strings with any quote. ``blanked`` goes further: it
replaces every f-string of a file by a plain string literal of the same shape (same lines, same
columns), so the rest of the file can be parsed and analysed; only what the f-strings hold is
not seen.
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
        if char == "\\" and (not raw or text[i + 1:i + 2] in (quote[0], "\\")):
            i += 2  # an escape; in a raw string a backslash still keeps the quote after it
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


def _blank(body: str) -> str:
    """An f-string's body as spaces: as many as its UTF-8 bytes (``ast`` columns count bytes),
    newlines kept, and a backslash kept before a newline (it continues a one-line string)."""
    out = []
    for index, char in enumerate(body):
        if char in "\r\n" or (char == "\\" and body[index + 1:index + 2] in ("\n", "\r")):
            out.append(char)
        else:
            out.append(" " * len(char.encode("utf-8", "surrogatepass")))
    return "".join(out)


def blanked(source: str) -> str | None:
    """``source`` with each f-string written as a plain string of spaces (newlines kept, so every
    other token keeps its line and its column in bytes); None when a string cannot be read to
    its end."""
    out: list[str] = []
    i = 0
    while i < len(source):
        char = source[i]
        if char == "#":
            end = source.find("\n", i)
            end = len(source) if end < 0 else end
            out.append(source[i:end])
            i = end
            continue
        match = _PREFIXED_QUOTE.match(source, i) if char in "'\"rRbBuUfF" else None
        if match is None or (i > 0 and (source[i - 1].isalnum() or source[i - 1] == "_")):
            out.append(char)
            i += 1
            continue
        prefix, quote = match.group(1), match.group(2)
        formatted = "f" in prefix.lower()
        end = _string_end(source, match.end(), quote, "r" in prefix.lower(), formatted)
        if end is None or end == _UNFINISHED:
            return None
        if formatted:  # a plain-string prefix of the same length: the literal starts where it did
            opening = ("U" if prefix == "F" else "u") + quote if len(prefix) == 1 else "r" + quote + " "
            out.append(opening + _blank(source[match.end():end - len(quote)]) + quote)
        else:
            out.append(source[i:end])
        i = end
    return "".join(out)
