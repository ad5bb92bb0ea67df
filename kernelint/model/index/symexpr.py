"""Symbolic integer expressions shared by the host-shape model and the index engine.

A ``Poly`` is a polynomial with integer coefficients over named symbols: a sorted tuple of
``(monomial, coefficient)`` pairs, a monomial being the sorted tuple of its symbols' names
(repeated for powers). Polys are hash-consed: equal polynomials are the same object, so facts
compare with ``is`` and hash once.

Operations that are not polynomial (``a // k``, ``cdiv(a, k)``, ``a % k``, ``min``, ``max``,
``next_power_of_2``) fold when their operands are constants and otherwise become an *atom*: a
symbol whose name spells the operation (``cdiv(n,128)``) and whose definition is kept in
``ATOMS``, so ``bounds.py`` can use what the operation implies (``128 * cdiv(n, 128) <= n + 127``).

What a symbol stands for (a program id, a lane of ``tl.arange``, a host tensor's dimension, a
value read with ``.item()``) and the range it takes are not part of the algebra: they live in a
``Symbols`` table (``bounds.py``) for kernel symbols and in ``SYMBOLS`` for host symbols, whose
meaning does not depend on the question asked.

No solver and no sympy (design note section 2.3: microseconds per check).
"""
from __future__ import annotations

import ast

from dataclasses import dataclass

Monomial = tuple[str, ...]

#: Interned polynomials by their terms. Cleared when it grows past ``_INTERN_LIMIT`` (a long
#: corpus run must not keep every polynomial of every file alive).
_INTERN: dict[tuple, "Poly"] = {}
_INTERN_LIMIT = 200_000


class Poly:
    """An interned polynomial. Build one with ``const``, ``sym`` or the arithmetic below."""

    __slots__ = ("terms", "_hash")

    terms: tuple[tuple[Monomial, int], ...]

    def __new__(cls, terms: tuple[tuple[Monomial, int], ...]):
        found = _INTERN.get(terms)
        if found is not None:
            return found
        if len(_INTERN) > _INTERN_LIMIT:
            _INTERN.clear()
        poly = object.__new__(cls)
        poly.terms = terms
        poly._hash = hash(terms)
        _INTERN[terms] = poly
        return poly

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other) -> bool:
        return self is other or (isinstance(other, Poly) and self.terms == other.terms)

    def __repr__(self) -> str:
        return f"Poly({render(self)})"

    # --- arithmetic --------------------------------------------------------------------------

    def __add__(self, other: "Poly | int") -> "Poly":
        return add(self, _lift(other))

    __radd__ = __add__

    def __sub__(self, other: "Poly | int") -> "Poly":
        return add(self, _lift(other), -1)

    def __rsub__(self, other: "Poly | int") -> "Poly":
        return add(_lift(other), self, -1)

    def __mul__(self, other: "Poly | int") -> "Poly":
        return mul(self, _lift(other))

    __rmul__ = __mul__

    def __neg__(self) -> "Poly":
        return scale(self, -1)

    # --- reading -----------------------------------------------------------------------------

    @property
    def is_const(self) -> bool:
        return all(not monomial for monomial, _ in self.terms)

    @property
    def constant(self) -> int:
        """The constant term (the whole value when ``is_const``)."""
        for monomial, coefficient in self.terms:
            if not monomial:
                return coefficient
        return 0

    def symbols(self) -> set[str]:
        return {name for monomial, _ in self.terms for name in monomial}

    def degree(self) -> int:
        return max((len(m) for m, _ in self.terms), default=0)


def _make(table: dict[Monomial, int]) -> Poly:
    return Poly(tuple(sorted(item for item in table.items() if item[1])))


def _lift(value: "Poly | int") -> Poly:
    return value if isinstance(value, Poly) else const(value)


_CONSTS: dict[int, Poly] = {}
_SYMS: dict[str, Poly] = {}


def const(value: int) -> Poly:
    found = _CONSTS.get(value)
    if found is None:
        found = Poly((((), int(value)),)) if value else Poly(())
        if len(_CONSTS) < 4096:
            _CONSTS[value] = found
    return found


def sym(name: str) -> Poly:
    found = _SYMS.get(name)
    if found is None:
        found = Poly((((name,), 1),))
        if len(_SYMS) < _INTERN_LIMIT:
            _SYMS[name] = found
    return found


def from_table(table: dict[Monomial, int]) -> Poly:
    """The polynomial of a ``monomial -> coefficient`` table (zero coefficients dropped)."""
    return _make(table)


ZERO = const(0)
ONE = const(1)


def add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    table = dict(a.terms)
    for monomial, coefficient in b.terms:
        table[monomial] = table.get(monomial, 0) + sign * coefficient
    return _make(table)


def scale(a: Poly, factor: int) -> Poly:
    return _make({m: c * factor for m, c in a.terms})


def mul(a: Poly, b: Poly) -> Poly:
    table: dict[Monomial, int] = {}
    for ma, ca in a.terms:
        for mb, cb in b.terms:
            monomial = tuple(sorted(ma + mb))
            table[monomial] = table.get(monomial, 0) + ca * cb
    return _make(table)


def substitute(a: Poly, values: dict[str, Poly], _depth: int = 0) -> Poly:
    """``a`` with each symbol in ``values`` replaced by its polynomial, inside atoms too
    (``floordiv(pid1, H)`` with ``H`` bound is rebuilt, and folds where it can)."""
    if not values or _depth > 8:
        return a
    total = ZERO
    changed = False
    for monomial, coefficient in a.terms:
        term = const(coefficient)
        for name in monomial:
            replaced = values.get(name)
            if replaced is None and name in ATOMS:
                atom = ATOMS[name]
                args = tuple(substitute(x, values, _depth + 1) for x in atom.args)
                if any(x is not y for x, y in zip(args, atom.args)):
                    replaced = _REBUILD[atom.op](*args)
            if replaced is not None:
                changed = True
            term = mul(term, replaced if replaced is not None else sym(name))
        total = add(total, term)
    return total if changed else a


# --- atoms -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Atom:
    """A non-polynomial operation kept as a symbol: ``op`` is one of ``floordiv``, ``cdiv``,
    ``mod``, ``min``, ``max``, ``np2`` (next power of two), with its operands."""

    op: str
    args: tuple[Poly, ...]


#: Atom symbol name -> its definition. Content-addressed, so one table serves every file.
ATOMS: dict[str, Atom] = {}


def _atom(op: str, *args: Poly) -> Poly:
    name = f"{op}({','.join(render(a) for a in args)})"
    if name not in ATOMS:
        if len(ATOMS) > _INTERN_LIMIT:
            ATOMS.clear()
        ATOMS[name] = Atom(op, args)
    return sym(name)


def _divides_all(a: Poly, k: int) -> bool:
    return all(c % k == 0 for _, c in a.terms)


def floordiv(a: Poly, b: Poly) -> Poly:
    if b.is_const and b.constant > 0:
        k = b.constant
        if k == 1:
            return a
        if _divides_all(a, k):  # every term a multiple of k: exact for integer symbols
            return _make({m: c // k for m, c in a.terms})
        if a.is_const:
            return const(a.constant // k)
        whole, rest = divmod(a.constant + 1, k)
        if rest == 0:  # (x + q*k - 1) // k == cdiv(x, k) + q - 1
            return add(cdiv(add(a, const(a.constant), -1), b), const(whole - 1))
    exact = divide_monomial(a, b)
    if exact is not None:
        return exact
    return _atom("floordiv", a, b)


def divide_monomial(a: Poly, b: Poly) -> Poly | None:
    """``a / b`` when ``b`` is one monomial with coefficient 1 that every term of ``a`` holds
    (``B*T*H*K // K``)."""
    if len(b.terms) != 1 or b.terms[0][1] != 1 or not b.terms[0][0]:
        return None
    divisor = list(b.terms[0][0])
    table: dict[Monomial, int] = {}
    for monomial, coefficient in a.terms:
        rest = list(monomial)
        for name in divisor:
            if name not in rest:
                return None
            rest.remove(name)
        table[tuple(rest)] = coefficient
    return _make(table)


def cdiv(a: Poly, b: Poly) -> Poly:
    if b.is_const and b.constant > 0:
        k = b.constant
        if k == 1:
            return a
        if _divides_all(a, k):
            return _make({m: c // k for m, c in a.terms})
        if a.is_const:
            return const(-(-a.constant // k))
    exact = divide_monomial(a, b)
    if exact is not None:
        return exact
    return _atom("cdiv", a, b)


def mod(a: Poly, b: Poly) -> Poly:
    if a.is_const and b.is_const and b.constant:
        return const(a.constant % b.constant)
    if b.is_const and b.constant == 1:
        return ZERO
    return _atom("mod", a, b)


def minimum(*args: Poly) -> Poly:
    return _extreme("min", min, args)


def maximum(*args: Poly) -> Poly:
    return _extreme("max", max, args)


def _extreme(op: str, pick, args: tuple[Poly, ...]) -> Poly:
    constants = [a.constant for a in args if a.is_const]
    others = sorted({a for a in args if not a.is_const}, key=render)
    folded = [const(pick(constants))] if constants else []
    operands = [*others, *folded]
    if len(operands) == 1:
        return operands[0]
    return _atom(op, *operands)


def next_power_of_2(a: Poly) -> Poly:
    if a.is_const:
        value = a.constant
        return const(1 << max(value - 1, 0).bit_length())
    return _atom("np2", a)


_REBUILD = {
    "floordiv": lambda a, b: floordiv(a, b), "cdiv": lambda a, b: cdiv(a, b), "mod": lambda a, b: mod(a, b),
    "min": lambda *args: minimum(*args), "max": lambda *args: maximum(*args), "np2": lambda a: next_power_of_2(a),
}


def atom_of(name: str) -> Atom | None:
    return ATOMS.get(name)


# --- rendering ---------------------------------------------------------------------------------

def render(a: Poly, label=None) -> str:
    """``a`` as text (``128*pid0 + lane1 - 1``); ``label(name)`` renders a symbol (default: its
    name)."""
    label = label or (lambda name: name)
    if not a.terms:
        return "0"
    parts: list[str] = []
    for monomial, coefficient in sorted(a.terms, key=lambda t: (-len(t[0]), t[0])):
        names = [label(n) for n in monomial]
        if not names:
            body = str(abs(coefficient))
        elif abs(coefficient) == 1:
            body = "*".join(names)
        else:
            body = "*".join([str(abs(coefficient)), *names])
        sign = "-" if coefficient < 0 else "+"
        parts.append(f"{sign} {body}")
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def from_operator(op: ast.operator, left: Poly, right: Poly) -> Poly | None:
    """``left <op> right`` for a Python arithmetic operator, or None for one the algebra does not
    model. ``(a + b - 1) // b`` with a run-time ``b`` is the ceiling division it spells."""
    if isinstance(op, ast.Add):
        return left + right
    if isinstance(op, ast.Sub):
        return left - right
    if isinstance(op, ast.Mult):
        return left * right
    if isinstance(op, ast.FloorDiv):
        if not right.is_const:
            numerator = left - right + 1
            if not (numerator.symbols() & right.symbols()):
                return cdiv(numerator, right)
        return floordiv(left, right)
    if isinstance(op, ast.Mod):
        return mod(left, right)
    if isinstance(op, ast.LShift) and right.is_const and 0 <= right.constant < 64:
        return left * (1 << right.constant)
    return None
