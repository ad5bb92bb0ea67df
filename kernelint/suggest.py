"""'Did you mean ...?' for a mistyped rule code, rule name or setting, by edit distance.

Damerau-Levenshtein distance (a swap of two neighbours is one edit), case-insensitive, where
swapping characters that look alike in a code (``O`` and ``0``, ``I``/``l`` and ``1``) costs
half an edit: ``KL1O1`` is one look-alike away from ``KL101`` and a real edit from ``KL111``.
A suggestion is offered only when it is within a third of the word's length (at least one edit).
"""
from __future__ import annotations

from typing import Iterable

_LOOK_ALIKE = {frozenset(pair) for pair in (("o", "0"), ("i", "1"), ("l", "1"), ("s", "5"), ("b", "8"), ("z", "2"))}


def _substitution(a: str, b: str) -> float:
    if a == b:
        return 0.0
    return 0.5 if frozenset((a, b)) in _LOOK_ALIKE else 1.0


def distance(word: str, other: str) -> float:
    a, b = word.lower().replace("_", "-"), other.lower()
    previous2: list[float] = []
    previous = [float(j) for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        current = [float(i)] + [0.0] * len(b)
        for j in range(1, len(b) + 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1,
                             previous[j - 1] + _substitution(a[i - 1], b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1] and a[i - 1] != b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice nearest ``word`` within the allowed distance (first in order on a tie)."""
    limit = max(1.0, len(word) / 3)
    best: tuple[float, str] | None = None
    for choice in choices:
        d = distance(word.strip(), choice)
        if d <= limit and (best is None or d < best[0]):
            best = (d, choice)
    return best[1] if best else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'KL101'?)`` or the empty string."""
    found = closest(word, choices)
    return f" (did you mean {found!r}?)" if found else ""
