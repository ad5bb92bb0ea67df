"""Ranges of symbols and what they imply: symbolic bounds relative to sizes, numeric intervals,
and constraints (masks) of the form ``p <= 0``.

Bounds follow CodeQL's range analysis (``e <= b + delta`` with ``b`` a size symbol): a symbol
that has a bound written over other symbols (``pid0 <= cdiv(n, 128) - 1``) is replaced by it,
and a *free* symbol (a size the host passes, with no bound of its own) stays, so the answer is a
polynomial over sizes: ``sup(128*pid0 + lane) = n - 1 + 127 - 127 = n - 1`` once the
``cdiv`` lemma (``k * cdiv(a, k) <= a + k - 1``) is applied. Intervals alone would lose that
relation between the program id and ``n``.

Numeric intervals use ``inf`` for a symbol without a numeric bound (a size read at run time):
``interval(pid * stride)`` is ``(0, inf)`` unless both are bounded, and a product of bounded
factors is compared with 2^31 as a number.
"""
from __future__ import annotations

from dataclasses import dataclass

from kernelint.model.index.symexpr import ATOMS, Poly, add, const, divide_monomial, from_table, mul, render, scale, sym

INF = float("inf")
#: Rounds of substitution (a bound may name a symbol that has a bound of its own).
_ROUNDS = 4


@dataclass(frozen=True)
class Range:
    """What is known of a symbol: symbolic bounds (inclusive, over other symbols) and numeric
    ones; ``label`` is how a message names it (``pid0``, ``n_cols``)."""

    lo: Poly | None = None
    hi: Poly | None = None
    num_lo: float = -INF
    num_hi: float = INF
    label: str | None = None


class Symbols:
    """The ranges of the symbols of one question (a kernel under one launch)."""

    def __init__(self, ranges: dict[str, Range] | None = None, nonnegative: tuple[str, ...] = ()):
        self.ranges: dict[str, Range] = dict(ranges or {})
        #: Name prefixes of symbols that are never negative without a range of their own
        #: (sizes read on the host).
        self.nonnegative_prefixes = nonnegative

    def set(self, name: str, rng: Range) -> None:
        self.ranges[name] = rng

    def get(self, name: str) -> Range:
        found = self.ranges.get(name)
        if found is not None:
            return found
        if self.nonnegative_prefixes and name.startswith(self.nonnegative_prefixes):
            return _NONNEGATIVE
        return _atom_range(name, self)

    def label(self, name: str) -> str:
        rng = self.ranges.get(name)
        return rng.label if rng is not None and rng.label else name

    def render(self, poly: Poly) -> str:
        return render(poly, self.label)

    # --- numeric -----------------------------------------------------------------------------

    def interval(self, poly: Poly) -> tuple[float, float]:
        """The numeric interval ``poly`` takes (``inf`` where a symbol is unbounded)."""
        lo_total, hi_total = 0.0, 0.0
        for monomial, coefficient in poly.terms:
            lo, hi = 1.0, 1.0
            for name in monomial:
                rng = self.get(name)
                lo, hi = _times((lo, hi), (rng.num_lo, rng.num_hi))
            lo, hi = _times((lo, hi), (coefficient, coefficient))
            lo_total, hi_total = lo_total + lo, hi_total + hi
        return lo_total, hi_total

    def nonnegative(self, name: str) -> bool:
        if self.get(name).num_lo >= 0:
            return True
        atom = ATOMS.get(name)
        return atom is not None and atom.op in ("floordiv", "cdiv", "mod", "np2") and all(
            self.interval(a)[0] >= 0 for a in atom.args)

    # --- symbolic ----------------------------------------------------------------------------

    def upper(self, poly: Poly) -> Poly | None:
        """A polynomial over free symbols that is ``>= poly`` for every value of the bounded
        ones; None when some term has no upper bound."""
        return self._bound(poly, upper=True)

    def lower(self, poly: Poly) -> Poly | None:
        return self._bound(poly, upper=False)

    def _bound(self, poly: Poly, upper: bool) -> Poly | None:
        current = poly
        for _ in range(_ROUNDS):
            changed = False
            table: dict[tuple[str, ...], int] = {}
            for monomial, coefficient in current.terms:
                if self._kept(monomial):
                    table[monomial] = table.get(monomial, 0) + coefficient
                    continue
                term = self._term_bound(monomial, coefficient, upper)
                if term is None:
                    return None
                changed = True
                for m, c in term.terms:
                    table[m] = table.get(m, 0) + c
            current = from_table(table)
            if not changed:
                return current
        return current

    def _kept(self, monomial: tuple[str, ...]) -> bool:
        """Every symbol of ``monomial`` is free and no atom lemma applies: the term stays."""
        return all(name not in ATOMS and self._free(name) for name in monomial)

    def _term_bound(self, monomial: tuple[str, ...], coefficient: int, upper: bool) -> Poly | None:
        """A bound of ``coefficient * monomial`` in the given direction."""
        if not monomial:
            return const(coefficient)
        want_hi = (coefficient > 0) == upper
        if len(monomial) == 1:
            name = monomial[0]
            lemma = _atom_lemma(name, coefficient, want_hi, self)
            if lemma is None and want_hi:
                lemma = self._symbolic_division(name, coefficient)
            if lemma is not None:
                return lemma
            rng = self.get(name)
            bound = rng.hi if want_hi else rng.lo
            if bound is None:
                if self._free(name):
                    return _term(monomial, coefficient)
                return None
            return scale(bound, coefficient)
        # A product: each factor is replaced by its bound in the same direction when all
        # factors are nonnegative (the product is monotone in each); free ones stay.
        if not all(self.nonnegative(n) for n in monomial):
            return None
        product = const(coefficient)
        for name in monomial:
            bound = self._term_bound((name,), 1, want_hi)
            if bound is None:
                return None
            product = mul(product, bound)
        return product

    def _symbolic_division(self, name: str, coefficient: int) -> Poly | None:
        """Upper bounds of ``a // b`` and ``a % b`` by a size ``b`` (one monomial):
        ``pid // H <= B - 1`` when ``pid <= B*H - 1``, and ``a % H <= H - 1``."""
        atom = ATOMS.get(name)
        if atom is None or atom.op not in ("floordiv", "mod") or atom.args[1].is_const:
            return None
        divisor = atom.args[1]
        if atom.op == "mod":
            return scale(add(divisor, const(-1)), coefficient)
        bound = self.upper(atom.args[0])
        if bound is None:
            return None
        exact = divide_monomial(add(bound, const(1)), divisor)
        if exact is not None:
            return scale(add(exact, const(-1)), coefficient)
        exact = divide_monomial(bound, divisor)
        return scale(exact, coefficient) if exact is not None else None

    def _free(self, name: str) -> bool:
        """A size with no range of its own: kept as a symbol in a symbolic bound."""
        rng = self.ranges.get(name)
        return rng is None or (rng.lo is None and rng.hi is None)

    # --- constraints -------------------------------------------------------------------------

    def implied(self, query: Poly, facts: tuple[Poly, ...] = ()) -> bool:
        """``query <= 0`` holds: by a fact ``f <= 0`` with ``query - f`` a nonpositive constant,
        or because the upper bound of ``query`` is a nonpositive constant."""
        for fact in facts:
            difference = add(query, fact, -1)
            if difference.is_const and difference.constant <= 0:
                return True
        bound = self.upper(query)
        return bound is not None and bound.is_const and bound.constant <= 0


_NONNEGATIVE = Range(num_lo=0)


def _term(monomial: tuple[str, ...], coefficient: int) -> Poly:
    result = const(coefficient)
    for name in monomial:
        result = mul(result, sym(name))
    return result


def _times(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    products = [_mul(x, y) for x in a for y in b]
    return min(products), max(products)


def _mul(x: float, y: float) -> float:
    if x == 0 or y == 0:
        return 0.0
    return x * y


def _atom_lemma(name: str, coefficient: int, want_hi: bool, symbols: Symbols) -> Poly | None:
    """What an atom implies, written over its operands: ``c * cdiv(a, k) <= (c/k) * (a + k - 1)``
    and ``c * (a // k) <= (c/k) * a`` when ``k`` divides ``c`` (``c > 0``, upper bounds; lower
    bounds mirror them). ``want_hi`` is the atom's direction (a negative ``c`` wants the atom's
    upper bound for the term's lower one: ``-2 * cdiv(n, 2) >= -(n + 1)``)."""
    atom = ATOMS.get(name)
    if atom is None or atom.op not in ("cdiv", "floordiv") or not atom.args[1].is_const:
        return None
    k = atom.args[1].constant
    if k <= 0 or coefficient % k:
        return None
    a = atom.args[0]
    factor = coefficient // k
    if atom.op == "cdiv":
        # a/k <= cdiv(a, k) <= (a + k - 1)/k
        bound = add(a, const(k - 1)) if want_hi else a
    else:
        # (a - k + 1)/k <= a // k <= a/k
        bound = a if want_hi else add(a, const(1 - k))
    return scale(bound, factor)


def _atom_range(name: str, symbols: Symbols) -> Range:
    """The numeric range of an atom from its operands (a ``mod`` by ``k`` is in ``[0, k-1]``, a
    ``min`` is at most its smallest upper bound); unknown atoms and plain symbols: unbounded."""
    atom = ATOMS.get(name)
    if atom is None:
        return Range()
    if atom.op == "mod" and atom.args[1].is_const and atom.args[1].constant > 0:
        return Range(lo=const(0), hi=const(atom.args[1].constant - 1), num_lo=0, num_hi=atom.args[1].constant - 1)
    intervals = [symbols.interval(a) for a in atom.args]
    if atom.op == "min":
        return Range(num_lo=min(i[0] for i in intervals), num_hi=min(i[1] for i in intervals))
    if atom.op == "max":
        return Range(num_lo=max(i[0] for i in intervals), num_hi=max(i[1] for i in intervals))
    if atom.op in ("cdiv", "floordiv") and atom.args[1].is_const and atom.args[1].constant > 0:
        k = atom.args[1].constant
        lo, hi = intervals[0]
        round_up = atom.op == "cdiv"
        return Range(num_lo=_div(lo, k, round_up), num_hi=_div(hi, k, round_up))
    if atom.op == "np2":
        lo, hi = intervals[0]
        return Range(num_lo=max(lo, 1), num_hi=hi if hi == INF else float(1 << max(int(hi) - 1, 0).bit_length()))
    return Range()


def _div(value: float, k: int, round_up: bool) -> float:
    if value in (INF, -INF):
        return value
    return float(-(-int(value) // k) if round_up else int(value) // k)
