"""A kernel's symbols under one launch: the program ids range over the grid the host launches,
parameters take the host sizes the launch passes, and each pointer parameter the symbolic
shape of its host tensor (``project/shapes.py``).

``bind(index, site)`` returns the ``Symbols`` of the kernel index with, per launch:

- ``pid<a>`` in ``[0, grid[a] - 1]`` (symbolic upper bound over host symbols, so the
  ``cdiv`` lemma gives ``pid * BLOCK + lane <= n - 1 + BLOCK - 1``);
- ``param:<name>`` and ``const:<name>`` replaced by the host size passed for them
  (``substitution``), so an offset becomes a polynomial over host symbols whose growth
  (``data``/``dim``/``datadep``) tells a batch-sized offset from a table index;
- ``tensors``: parameter name -> host ``Tensor`` for the pointers passed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.index import symexpr as sx
from kernelint.model.index.access import CONST, PARAM, PID, KernelIndex
from kernelint.model.index.bounds import Range, Symbols
from kernelint.model.index.grid import grid_axes
from kernelint.model.index.symexpr import Poly
from kernelint.model.project import shapes
from kernelint.model.core.memo import kept_on

if TYPE_CHECKING:
    from kernelint.model.project.view import Site


@dataclass
class Bound:
    """A kernel index under one launch."""

    site: "Site"
    symbols: Symbols
    #: kernel symbol -> host polynomial (parameters, and program ids' grid sizes as ``npid<a>``),
    #: read on first use.
    substitution: "_Arguments"
    tensors: "_Tensors"
    grid: tuple[Poly | None, ...]

    def host(self, poly: Poly) -> Poly:
        """``poly`` with the kernel's parameters replaced by what the launch passes."""
        return sx.substitute(poly, self.substitution)


#: Launch sites read per kernel.
MAX_SITES = 8


def launch_sites(ctx, kernel) -> list["Site"]:
    """The project's launches of ``kernel`` (at most ``MAX_SITES``), once per file model."""
    per_file = kept_on(ctx, "launch_sites")
    key = id(kernel.node)
    if key not in per_file:
        per_file[key] = ctx.project.launches_of(kernel, ctx)[:MAX_SITES]
    return per_file[key]


def bind(index: KernelIndex, site: "Site") -> Bound:
    """``index`` under ``site`` (computed once per kernel index and launch)."""
    cache = index.__dict__.setdefault("_bound", {})
    key = id(site.node)
    if key not in cache:
        cache[key] = _bind(index, site)
    return cache[key]


class _Arguments:
    """What a launch passes for each kernel parameter, read on first use (following a host value
    into the wrapper's callers is the costly step, and most parameters are never asked about):
    ``get(PARAM + name)``/``get(CONST + name)`` is the host size, ``tensor(name)`` the tensor."""

    def __init__(self, index: KernelIndex, site: "Site"):
        self.ctx = site.ctx
        self.view = site.ctx.project
        self.passed = site.launch.bound_arguments()
        self.defaults = index.kernel.defaults()
        self.sizes: dict[str, Poly | None] = {}
        self.tensors: dict[str, shapes.Tensor | None] = {}
        self.fixed: dict[str, Poly] = {}

    def __bool__(self) -> bool:
        return True

    def _read(self, name: str) -> None:
        if name in self.sizes:
            return
        expr = self.passed.get(name)
        tensor = shapes.tensor_of(self.view, self.ctx, expr) if expr is not None else None
        self.tensors[name] = tensor
        size = None
        if tensor is None and expr is not None:
            size = shapes.size_of(self.view, self.ctx, expr)
        elif expr is None and name in self.defaults:
            value = self.ctx.resolve_int(self.defaults[name]) if self.defaults[name] is not None else None
            size = sx.const(value) if value is not None else None
        self.sizes[name] = size

    def get(self, key: str, default=None):
        if key in self.fixed:
            return self.fixed[key]
        for prefix in (PARAM, CONST):
            if key.startswith(prefix):
                self._read(key[len(prefix):])
                found = self.sizes[key[len(prefix):]]
                return found if found is not None else default
        return default

    def __setitem__(self, key: str, value: Poly) -> None:
        self.fixed[key] = value

    def __getitem__(self, key: str) -> Poly:
        found = self.get(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def keys(self):
        return {PARAM + n for n in self.passed} | {CONST + n for n in self.passed} | set(self.fixed)

    def tensor(self, name: str) -> shapes.Tensor | None:
        self._read(name)
        return self.tensors.get(name)


class _Tensors:
    """``bound.tensors.get(name)``: the host tensor passed for a pointer parameter, on first use."""

    def __init__(self, arguments: _Arguments):
        self.arguments = arguments

    def get(self, name: str, default=None):
        found = self.arguments.tensor(name)
        return found if found is not None else default

    def __contains__(self, name: str) -> bool:
        return self.arguments.tensor(name) is not None

    def __getitem__(self, name: str) -> shapes.Tensor:
        found = self.arguments.tensor(name)
        if found is None:
            raise KeyError(name)
        return found


def _bind(index: KernelIndex, site: "Site") -> Bound:
    ctx = site.ctx
    launch = site.launch
    substitution = _Arguments(index, site)
    alternatives = grid_axes(ctx, launch)
    grid = tuple(a.size for a in alternatives[0]) if len(alternatives) == 1 else ()
    meta = _meta_values(grid, substitution)
    grid = tuple(sx.substitute(g, meta) if g is not None else None for g in grid)
    symbols = Symbols({name: _host_range(rng, substitution, index.symbols)
                       for name, rng in index.symbols.ranges.items()}, nonnegative=("h:",))
    for axis in range(3):
        size = grid[axis] if axis < len(grid) else (sx.ONE if grid else None)
        name = f"{PID}{axis}"
        if size is None:
            continue
        substitution[f"npid{axis}"] = size
        symbols.set(name, Range(lo=sx.ZERO, hi=size - 1, num_lo=0, label=name))
    return Bound(site, symbols, substitution, _Tensors(substitution), grid)


def _host_range(rng: Range, substitution: dict[str, Poly], kernel_symbols: Symbols) -> Range:
    """A kernel symbol's range with the launch's host values in its bounds."""
    lo = sx.substitute(rng.lo, substitution) if rng.lo is not None else None
    hi = sx.substitute(rng.hi, substitution) if rng.hi is not None else None
    num_lo, num_hi = rng.num_lo, rng.num_hi
    if lo is not None and lo.is_const:
        num_lo = max(num_lo, lo.constant)
    if hi is not None and hi.is_const:
        num_hi = min(num_hi, hi.constant)
    return Range(lo, hi, num_lo, num_hi, rng.label)


def _meta_values(grid: tuple[Poly | None, ...], substitution: dict[str, Poly]) -> dict[str, Poly]:
    """``META["BLOCK"]`` in a grid function is the value the launch passes for ``BLOCK``."""
    import re

    found: dict[str, Poly] = {}
    for size in grid:
        for name in _all_symbols(size) if size is not None else ():
            symbol = shapes.SYMBOLS.get(name)
            if symbol is None or symbol.growth != shapes.META:
                continue
            key = re.fullmatch(r"\w+\[['\"](\w+)['\"]\]", symbol.label)
            value = substitution.get(CONST + key.group(1)) if key else None
            if value is not None:
                found[name] = value
    return found


def _all_symbols(poly: Poly, depth: int = 0) -> set[str]:
    """The symbols of ``poly`` and of the atoms in it."""
    found = set()
    for name in poly.symbols():
        found.add(name)
        atom = sx.atom_of(name)
        if atom is not None and depth < 6:
            for arg in atom.args:
                found |= _all_symbols(arg, depth + 1)
    return found
