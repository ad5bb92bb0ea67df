"""Corpus precision: how many of a rule's findings on real kernel repositories a person judged
worth having, ``(true + latent) / judged`` (``reference_kernels/corpus_precision.json``, written by
``benchmarks/corpus.py --write-precision`` from the judged table and by hand from earlier rounds
in docs/precision.md).

The default-on policy reads it: a rule is on by default only where that figure is at least 90%
over the repositories it has findings in, or where it has no finding on the corpus and its
reference pair reproduced (``policy_problem``; tests/test_precision_policy.py holds every rule to
it). Tool rules (KL0xx) report on the run, not on kernel code, and are exempt.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kernelint.rules import Rule

FILE = "corpus_precision.json"
THRESHOLD = 0.9


@dataclass(frozen=True)
class Precision:
    judged: int
    good: int  # true + latent
    repositories: tuple[str, ...]
    source: str

    @property
    def ratio(self) -> float | None:
        return self.good / self.judged if self.judged else None

    def figure(self) -> str:
        """``100% (23/23)``, or ``no finding`` when the corpus gave the rule none."""
        if not self.judged:
            return "no finding"
        return f"{self.ratio:.0%} ({self.good}/{self.judged})"


@lru_cache(maxsize=1)
def _data() -> dict:
    try:
        text = resources.files("kernelint.reference_kernels").joinpath(FILE).read_text("utf-8")
        return json.loads(text)
    except (FileNotFoundError, OSError, ModuleNotFoundError, json.JSONDecodeError):
        return {"rules": {}}


def of(code: str) -> Precision | None:
    """The rule's corpus precision; None when it was never measured."""
    entry = _data().get("rules", {}).get(code)
    if entry is None:
        return None
    return Precision(entry.get("judged", 0), entry.get("true", 0) + entry.get("latent", 0),
                     tuple(entry.get("repositories", ())), entry.get("source", ""))


def figure(code: str) -> str:
    """What ``kernelint rules`` shows: the figure, or ``not measured``."""
    found = of(code)
    return found.figure() if found is not None else "not measured"


def policy_problem(rule: type["Rule"]) -> str | None:
    """Why ``rule`` may not be on by default by its measured precision (None when it may)."""
    if not rule.default_enabled or rule.code.startswith("KL0"):
        return None
    from kernelint.evidence import load_record

    found = of(rule.code)
    if found is None:
        return f"{rule.code} is on by default but its corpus precision was never measured"
    if found.judged:
        if found.ratio < THRESHOLD:
            return f"{rule.code} is on by default at {found.figure()} corpus precision (below {THRESHOLD:.0%})"
        return None
    record = load_record(rule.code) or {}
    if record.get("verdict") != "reproduced":
        return f"{rule.code} is on by default with no corpus finding and a pair that did not reproduce"
    return None
