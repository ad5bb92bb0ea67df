"""The sign of a host polynomial over sizes: is it positive (or nonzero) for the sizes a launch
can have?

Sizes are at least 1. ``grows_positive(p)`` holds when ``p`` is a positive constant, or never
negative and positive once a size passes 1: ``N - cdiv(N, 2)`` (a mask by ``N`` on ``x[::2]``),
``N - 1`` (a stride of ``N`` where the tensor's is 1). Division atoms by constants are bounded by
the ``cdiv``/``floordiv`` lemmas after scaling by their divisors (``2N - 2 cdiv(N, 2) >= N - 1``);
the bound's sizes are then written ``1 + s`` (``s >= 0``) and every coefficient must be
nonnegative. Anything else (``cdiv(N, 2) - cdiv(N - 1, 2)``, 1 for odd ``N`` only; ``M - N``) is
not decided: False.
"""
from __future__ import annotations

import itertools
import math

from kernelint.model.index import symexpr as sx
from kernelint.model.index.bounds import Symbols
from kernelint.model.index.symexpr import Poly

#: Host size symbols (``project/shapes.py``).
_HOST = "h:"


def grows_positive(poly: Poly, symbols: Symbols | None = None) -> bool:
    """``poly > 0`` for every size of at least 1, or ``poly >= 0`` for every such size and not a
    constant (positive once a size it grows with passes 1)."""
    if poly.is_const:
        return poly.constant > 0
    low = _lower(poly, symbols)
    if low is None:
        return False
    if low.is_const:
        return low.constant > 0
    shifted = sx.substitute(low, {n: sx.sym(n) + 1 for n in low.symbols()})
    return all(c >= 0 for _, c in shifted.terms)


def never_negative(poly: Poly, symbols: Symbols | None = None) -> bool:
    """``poly >= 0`` for every size of at least 1, shown through the division lemmas as in
    ``grows_positive`` (``cdiv(N, 2) - cdiv(N - 1, 2)`` is at least 0)."""
    if poly.is_const:
        return poly.constant >= 0
    low = _lower(poly, symbols)
    if low is None:
        return False
    if low.is_const:
        return low.constant >= 0
    shifted = sx.substitute(low, {n: sx.sym(n) + 1 for n in low.symbols()})
    return all(c >= 0 for _, c in shifted.terms)


#: Sizes tried for a witness, per size symbol (at most ``_WITNESS_SYMBOLS`` of them); 1 last, a
#: degenerate size makes a poor example.
_WITNESS_VALUES = (2, 3, 4, 5, 6, 7, 8, 1)
_WITNESS_SYMBOLS = 3


def positive_at(poly: Poly) -> tuple[dict[str, int], int] | None:
    """Sizes (each of 1 to 8) at which ``poly`` is a positive number, and that number: a witness
    that ``poly > 0`` for some inputs (``cdiv(N, 2) - cdiv(N - 1, 2)`` is 1 at ``N = 3``); None when
    no such sizes are found or ``poly`` has other symbols than host sizes."""
    names = sorted(_sizes_in(poly))
    if not names or len(names) > _WITNESS_SYMBOLS:
        return None
    for values in itertools.product(_WITNESS_VALUES, repeat=len(names)):
        assignment = dict(zip(names, values))
        value = sx.substitute(poly, {n: sx.const(v) for n, v in assignment.items()})
        if value.is_const and value.constant > 0:
            return assignment, value.constant
    return None


def _sizes_in(poly: Poly) -> set[str]:
    """The host size symbols of ``poly``, inside its atoms too; the empty set when a symbol of
    another kind is among them (``positive_at`` then finds no witness)."""
    found: set[str] = set()
    for name in poly.symbols():
        atom = sx.atom_of(name)
        if atom is not None:
            for arg in atom.args:
                found |= _sizes_in(arg)
        else:
            found.add(name)
    return found if all(n.startswith(_HOST) for n in found) else set()


def _lower(poly: Poly, symbols: Symbols | None) -> Poly | None:
    """A lower bound of ``poly`` over host sizes alone, division atoms bounded by their lemmas
    after scaling by their divisors (the bound of ``k * poly``, ``k`` the divisors' lcm)."""
    scale = 1
    for name in poly.symbols():
        atom = sx.atom_of(name)
        if atom is not None and atom.op in ("cdiv", "floordiv") and atom.args[1].is_const \
                and atom.args[1].constant > 0:
            scale = math.lcm(scale, atom.args[1].constant)
    low = (symbols or Symbols()).lower(sx.scale(poly, scale))
    if low is None or not all(n.startswith(_HOST) and sx.atom_of(n) is None for n in low.symbols()):
        return None
    return low


def differs(a: Poly, b: Poly, symbols: Symbols | None = None) -> bool:
    """``a != b`` for every size past 1: one is shown the larger by ``grows_positive``."""
    difference = sx.add(a, b, -1)
    return grows_positive(difference, symbols) or grows_positive(sx.scale(difference, -1), symbols)
