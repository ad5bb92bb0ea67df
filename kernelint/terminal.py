"""Names shown on a terminal or in a log: a file name may hold a newline or an escape sequence
(``a\\nb.py``, ``\\x1b[2J.py``), and printed raw it would forge a finding line or act on the
terminal. Such characters are shown as Python escapes (``\\n``, ``\\x1b``); machine formats
(JSON, SARIF) carry the name exactly, as their encoders escape it."""
from __future__ import annotations


def shown(text: str) -> str:
    """``text`` with every non-printable character (controls, line and paragraph separators,
    bidirectional overrides) written as its Python escape; printable text, Unicode included,
    unchanged."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)
