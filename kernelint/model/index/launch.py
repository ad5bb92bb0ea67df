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

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.index import symexpr as sx
from kernelint.model.index.access import CONST, PARAM, PID, KernelIndex
from kernelint.model.index.bounds import Range, Symbols
from kernelint.model.index.grid import grid_axes
from kernelint.model.index.symexpr import Poly
from kernelint.model.project import shapes

if TYPE_CHECKING:
    from kernelint.model.project.view import Site


@dataclass
class Bound:
    """A kernel index under one launch."""

    site: "Site"
    symbols: Symbols
    #: kernel symbol -> host polynomial (parameters, and program ids' grid sizes as ``npid<a>``).
    substitution: dict[str, Poly]
    tensors: dict[str, shapes.Tensor]
    grid: tuple[Poly | None, ...]

    def host(self, poly: Poly) -> Poly:
        """``poly`` with the kernel's parameters replaced by what the launch passes."""
        return sx.substitute(poly, self.substitution)


_SITES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
#: Launch sites read per kernel.
MAX_SITES = 8


def launch_sites(ctx, kernel) -> list["Site"]:
    """The project's launches of ``kernel`` (at most ``MAX_SITES``), once per file model."""
    per_file = _SITES.setdefault(ctx, {})
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


def _bind(index: KernelIndex, site: "Site") -> Bound:
    ctx = site.ctx
    launch = site.launch
    view = site.ctx.project
    substitution: dict[str, Poly] = {}
    tensors: dict[str, shapes.Tensor] = {}
    for name, expr in launch.bound_arguments().items():
        tensor = shapes.tensor_of(view, ctx, expr)
        if tensor is not None:
            tensors[name] = tensor
            continue
        size = shapes.size_of(view, ctx, expr)
        if size is not None:
            substitution[PARAM + name] = size
            substitution[CONST + name] = size
    for name, expr in index.kernel.defaults().items():
        if PARAM + name not in substitution:
            value = ctx.resolve_int(expr) if expr is not None else None
            if value is not None:
                substitution.setdefault(CONST + name, sx.const(value))
                substitution.setdefault(PARAM + name, sx.const(value))
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
    return Bound(site, symbols, substitution, tensors, grid)


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
