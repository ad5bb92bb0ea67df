"""Accesses that pass the end of their tensor for every size, even sizes that are multiples of
every block: a loop that runs one iteration more than the tiles the size holds
(``range(tl.cdiv(K, BK) + 1)``, ``range(N // BLOCK + 1)``), and a table indexed past its last
entry by the last program (``tl.load(cu_seqlens + pid + 1)`` with as many programs as entries).

For each access of a Triton kernel (the loop-stepped index, ``carried.py``, so ``p += BLOCK`` and
``tl.advance`` in a loop are read) under each launch the project makes (``launch.bind``), and for
each dimension of the host tensor it addresses (``axes.axis_indices``; a block pointer's own
dimensions), the largest index is bounded *at multiples*: every host size that the launch divides
by a constant block (``cdiv(K, 64)``, ``N // 256``) is replaced by a multiple of those blocks, so
the partial last tile that KL136/KL137/KL140 report is gone. What still passes the extent there is
caused by a count, and the count is named by the one symbol whose last value, taken away, brings
the access back inside: a loop's iteration (``loop``) or a program id (``grid``).

Silent (unknown stays unknown) where a mask or ``boundary_check`` bounds the index against the
extent, under an ``if``/``while`` of the kernel, where a size, stride or grid cannot be read, where
the excess is not a positive constant, and where taking one value away does not end it.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.index import symexpr as sx
from kernelint.model.index.access import PID, Access
from kernelint.model.index.axes import aligned_mask, axis_indices
from kernelint.model.index.bounds import Range, Symbols
from kernelint.model.index.carried import ITERATION, carried_index
from kernelint.model.index.launch import Bound, bind, launch_sites
from kernelint.model.index.symexpr import Poly
# the guard KL136 honours (an ``if``/``while`` around the access)
from kernelint.model.index.tails import _unguarded

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_RAW_KINDS = ("load", "store", "atomic")


@dataclass(frozen=True)
class Overrun:
    """``access`` passes dimension ``dim`` of its tensor (``rank`` dimensions, ``extent`` long) by up
    to ``excess`` elements at sizes that are multiples of every block; ``cause`` is the symbol
    whose last value does it (an ``iter:`` loop iteration or a ``pid<a>``), ``loop`` its loop."""

    access: Access
    dim: int
    rank: int
    extent: Poly
    index: Poly
    excess: int
    cause: str
    loop: ast.For | None
    argument: str
    where: str


def overruns(ctx: "FileContext", kernel: "Kernel") -> list[Overrun]:
    """Every access of ``kernel`` that passes its tensor's end at multiples of the blocks, under
    the first launch of the project that shows it."""
    sites = launch_sites(ctx, kernel)
    if not sites:
        return []
    index = carried_index(ctx, kernel)
    candidates = [a for a in index.accesses if _candidate(a) and _unguarded(ctx, kernel, a.node)]
    if not candidates:
        return []
    loops = index.evaluator.loops if index.evaluator is not None else {}
    found: list[Overrun] = []
    for access in candidates:
        for site in sites:
            bound = bind(index, site)
            result = _access_overrun(bound, access, loops, aligned_mask(index, access))
            if result is not None:
                found.append(result)
                break
    return found


def _candidate(access: Access) -> bool:
    if access.kind in _RAW_KINDS:
        return access.offset is not None and access.pointer is not None and (not access.masked or access.mask_complete)
    return access.kind.startswith("block_") and access.block is not None and not access.block.descriptor \
        and access.boundary_check is not None


def _access_overrun(bound: Bound, access: Access, loops: dict, mask: tuple[Poly, ...]) -> Overrun | None:
    argument = bound.site.launch.bound_arguments().get(access.pointer) if access.pointer else None
    text = ast.unparse(argument) if argument is not None else str(access.pointer)
    for dim, rank, index, last, extent, facts in _dimensions(bound, access, mask):
        drivers = [n for n in index.symbols() if n.startswith((ITERATION, PID))]
        if not drivers:
            continue
        query = sx.add(bound.host(last), sx.add(extent, sx.ONE, -1), -1)
        if facts and bound.symbols.implied(query, facts):
            continue
        found = _past_at_multiples(bound.symbols, query, drivers)
        if found is not None:
            excess, cause = found
            return Overrun(access, dim, rank, extent, index, excess, cause, loops.get(cause), text, bound.site.where)
    return None


def _dimensions(bound: Bound, access: Access, mask: tuple[Poly, ...] = ()):
    """``(dim, rank, index, last index, extent, mask facts)`` per dimension the access can pass:
    the split of a raw access's offset; each dimension of a block pointer ``boundary_check``
    leaves out (its last index is the block's offset plus the block size minus one)."""
    if access.kind in _RAW_KINDS:
        split = axis_indices(bound, access)
        if not split:
            return
        facts = tuple(bound.host(f) for f in mask)
        for axis in split:
            yield axis.axis, len(split), axis.index, axis.index, axis.extent, facts
        return
    block = access.block
    if not (len(block.shape) == len(block.offsets) == len(block.block_shape)):
        return
    for dim, (extent, offset, size) in enumerate(zip(block.shape, block.offsets, block.block_shape)):
        if dim in access.boundary_check or extent is None or offset is None or size is None:
            continue
        width = bound.host(size)
        if not width.is_const or width.constant <= 0:
            continue
        yield dim, len(block.shape), offset, offset + width.constant - 1, bound.host(extent), ()


def _past_at_multiples(symbols: Symbols, query: Poly, drivers: list[str]) -> tuple[int, str] | None:
    """``(excess, cause)`` when ``query`` (index - extent + 1) is a positive constant at sizes
    that are multiples of every block, and is not once ``cause`` loses its last value."""
    scaled = _multiples(symbols, query)
    if scaled is None:
        return None
    at_multiples, scaled_query = scaled
    reach = at_multiples.upper(scaled_query)
    if reach is None or not reach.is_const or reach.constant <= 0:
        return None
    for cause in sorted(drivers):
        rng = at_multiples.ranges.get(cause)
        if rng is None or rng.hi is None:
            continue
        fewer = Symbols(dict(at_multiples.ranges), at_multiples.nonnegative_prefixes)
        fewer.set(cause, Range(rng.lo, rng.hi - 1, rng.num_lo, rng.num_hi - 1, rng.label))
        shorter = fewer.upper(scaled_query)
        if shorter is not None and shorter.is_const and shorter.constant <= 0:
            return reach.constant, cause
    return None


def _multiples(symbols: Symbols, query: Poly) -> tuple[Symbols, Poly] | None:
    """``symbols`` and ``query`` with each host size that some ``cdiv``/``//`` divides by a constant
    replaced by a multiple of the least common multiple of those constants."""
    divisors: dict[str, int] = {}
    polys = [query] + [p for r in symbols.ranges.values() for p in (r.lo, r.hi) if p is not None]
    seen: set[str] = set()
    for poly in polys:
        _collect(poly, divisors, seen, 0)
    values = {name: sx.const(k) * sx.sym(name) for name, k in divisors.items() if k > 1}
    if not values:
        return symbols, query
    ranges = {name: Range(sx.substitute(r.lo, values) if r.lo is not None else None,
                          sx.substitute(r.hi, values) if r.hi is not None else None,
                          r.num_lo, r.num_hi, r.label)
              for name, r in symbols.ranges.items()}
    return Symbols(ranges, symbols.nonnegative_prefixes), sx.substitute(query, values)


def _collect(poly: Poly, divisors: dict[str, int], seen: set[str], depth: int) -> None:
    for name in poly.symbols():
        atom = sx.atom_of(name)
        if atom is None or name in seen or depth > 6:
            continue
        seen.add(name)
        if atom.op in ("cdiv", "floordiv") and atom.args[1].is_const and atom.args[1].constant > 1:
            numerator = atom.args[0]
            if len(numerator.terms) == 1 and numerator.terms[0][1] == 1 and len(numerator.terms[0][0]) == 1:
                size = numerator.terms[0][0][0]
                if size.startswith("h:"):
                    divisors[size] = math.lcm(divisors.get(size, 1), atom.args[1].constant)
        for arg in atom.args:
            _collect(arg, divisors, seen, depth + 1)
