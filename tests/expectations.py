"""Read inline expectations (``# expect: KL101``) and run kernelint's engine on a snippet."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

from kernelint.engine import Options, check_source
from kernelint.rules import all_rules

_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>KL\d{3}(?:\s*,\s*KL\d{3})*)")


def expected_findings(source: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = _EXPECT.search(line)
        if match:
            found |= {(number, code.strip()) for code in match.group("codes").split(",")}
    return found


def default_codes(*extra: str) -> frozenset[str]:
    return frozenset({r.code for r in all_rules() if r.default_enabled} | set(extra))


def findings(source: str, *codes: str, path: str = "snippet.py", dedent: bool = True):
    """Findings of the engine on ``source`` with the default rules plus ``codes``."""
    text = textwrap.dedent(source) if dedent else source
    return check_source(path, text, Options(default_codes(*codes)))


def reported(source: str, *codes: str, dedent: bool = True) -> set[tuple[int, str]]:
    return {(f.line, f.code) for f in findings(source, *codes, dedent=dedent)}


def assert_expectations(source: str, *codes: str) -> None:
    """flake8-bugbear style: exactly the lines marked ``# expect:`` are reported."""
    text = textwrap.dedent(source)
    assert reported(text, *codes, dedent=False) == expected_findings(text)


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")

