"""Open buffers, and positions between kernelint's and the client's counting.

Findings and edits count ``ast``'s way: 1-based lines, 0-based UTF-8 byte columns. LSP counts
0-based lines and, by default, UTF-16 code units (``utf-8`` when the client offers it, which
the server then prefers). Lines break at ``\\n``, ``\\r\\n`` and ``\\r``, as in both.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlparse
from urllib.request import url2pathname

from kernelint.noqa import split_lines

UTF8, UTF16 = "utf-8", "utf-16"


def path_of(uri: str) -> str:
    """The file a ``file:`` URI names; other schemes (an unsaved buffer) check as standard
    input does, with the working directory's configuration."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return "-"
    return str(Path(url2pathname(unquote(parsed.path))))


def _units(text: str, encoding: str) -> int:
    if encoding == UTF8:
        return len(text.encode("utf-8"))
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _characters(text: str, units: int, encoding: str) -> int:
    """How many characters of ``text`` make ``units`` code units (clamped to the line)."""
    count = 0
    for index, ch in enumerate(text):
        size = len(ch.encode("utf-8")) if encoding == UTF8 else (2 if ord(ch) > 0xFFFF else 1)
        if count + size > units:
            return index
        count += size
    return len(text)


@dataclass
class Document:
    uri: str
    text: str
    version: int | None = None
    path: str = field(init=False)
    lines: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.path = path_of(self.uri)
        self.update(self.text, self.version)

    def update(self, text: str, version: int | None) -> None:
        self.text, self.version = text, version
        self.lines = [line.rstrip("\r\n") for line in split_lines(text)]

    def line(self, number: int) -> str:
        """1-based line text without its ending ('' past the end)."""
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def position(self, line: int, byte_column: int, encoding: str) -> dict:
        """LSP position of (1-based line, 0-based UTF-8 byte column)."""
        text = self.line(line)
        prefix = text.encode("utf-8")[:max(byte_column, 0)].decode("utf-8", errors="ignore")
        return {"line": max(line - 1, 0), "character": _units(prefix, encoding)}

    def range(self, line: int, byte_column: int, end_line: int, end_byte_column: int, encoding: str) -> dict:
        return {"start": self.position(line, byte_column, encoding),
                "end": self.position(end_line, end_byte_column, encoding)}

    def ast_position(self, position: dict, encoding: str) -> tuple[int, int]:
        """(1-based line, UTF-8 byte column) of an LSP position."""
        line = int(position.get("line", 0)) + 1
        text = self.line(line)
        characters = _characters(text, int(position.get("character", 0)), encoding)
        return line, len(text[:characters].encode("utf-8"))

    def offset(self, position: dict, encoding: str) -> int:
        """Character offset into ``text`` of an LSP position (for incremental changes)."""
        raw_lines = split_lines(self.text)
        line = int(position.get("line", 0))
        if line >= len(raw_lines):
            return len(self.text)
        start = sum(len(item) for item in raw_lines[:line])
        body = raw_lines[line].rstrip("\r\n")
        return start + _characters(body, int(position.get("character", 0)), encoding)

    def apply_change(self, change: dict, version: int | None, encoding: str) -> None:
        """One ``contentChanges`` entry: the whole text, or a range replaced."""
        if "range" not in change or change["range"] is None:
            self.update(change.get("text", ""), version)
            return
        start = self.offset(change["range"]["start"], encoding)
        end = self.offset(change["range"]["end"], encoding)
        self.update(self.text[:start] + change.get("text", "") + self.text[max(end, start):], version)
