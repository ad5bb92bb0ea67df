"""The text of checked files, read once per run for the outputs that quote or hash a line
(``--show-source``, baselines, SARIF fingerprints). A buffer read from stdin is registered
under its display name so it is never looked for on disk."""
from __future__ import annotations

from pathlib import Path


class Sources:
    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}

    def add(self, path: str, text: str) -> None:
        self._lines[path] = text.splitlines()

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            try:
                text = Path(path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[path] = text.splitlines()
        return self._lines[path]

    def line(self, path: str, number: int) -> str:
        lines = self.lines(path)
        return lines[number - 1] if 0 < number <= len(lines) else ""


def character_column(line_text: str, byte_column: int) -> int:
    """The 0-based character offset of a 0-based UTF-8 byte offset into ``line_text`` (findings
    count bytes, as ``ast`` does; terminals, SARIF and GitHub count characters)."""
    return len(line_text.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))
