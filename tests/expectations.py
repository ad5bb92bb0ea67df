"""Read the inline expectations of a reference pair (``# expect: KL101``) and run kernelint's
engine on its text."""
from __future__ import annotations

from pathlib import Path

from fixture_files import markers, reported_sites
from kernelint.engine import Options, check_source
from kernelint.rules import all_rules


def expected_findings(source: str) -> set[tuple[int, str]]:
    return markers(source)["expect"]


def default_codes(*extra: str) -> frozenset[str]:
    return frozenset({r.code for r in all_rules() if r.default_enabled} | set(extra))


def reported(source: str, *codes: str) -> set[tuple[int, str]]:
    """(line, code) of the engine's findings on ``source`` with the default rules plus ``codes``."""
    return reported_sites(check_source("snippet.py", source, Options(default_codes(*codes))))


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")
