"""Global memory a Triton program stores and then loads back at other tile positions.

Within one program the tile's elements are spread over the program's threads, and Triton puts
no barrier between a ``tl.store`` and a later ``tl.load`` of global memory (it orders shared
memory only). A load whose element at tile position ``x`` is the one another position ``y``
stored (a transposed, reversed or shifted index over a program-local scratch region) can
therefore run before that store lands, unless ``tl.debug_barrier()`` separates them.

``cross_position_readbacks(ctx, kernel)`` pairs each ``tl.store`` with each later ``tl.load`` of
the same pointer parameter (from the index engine's access records) and keeps a pair only when:

- both offsets are readable polynomials with no data-dependent part (no loaded value) and no
  division or modulo of a lane (an atom over a lane);
- their parts that do not depend on lanes differ at most by constants and ``tl.constexpr``
  sizes once loop variables of loops with the same ``range(...)`` are identified (so both sides
  address the same program region in the same iteration: ``BLOCK - 1 - offs`` reads the
  region ``offs`` wrote, ``pid * BLOCK + BLOCK + offs`` the next program's);
- with every size left symbolic set to one small sample value, some position's load address is
  an address the store wrote at a different position (checked by enumerating the tile's
  positions; tiles with more than ``_MAX_POSITIONS`` positions are not decided);
- no ``tl.debug_barrier()`` lies between them in the kernel's source, the load is not
  ``volatile`` (the form used for deliberate cross-program flags), and they are not in the two
  branches of one ``if``.

A thread reading back the element it stored itself (the same offset polynomial, the common
"store, then reload the row in a second loop" form) is not reported: whether such a pair is a
race depends on the layouts the compiler picks for the stored value and the loaded tile
(pytorch #190517), which the source does not show.
"""
from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.index import symexpr as sx
from kernelint.model.index.access import Access, KernelIndex, kernel_index
from kernelint.model.index.symexpr import Poly

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

DEBUG_BARRIER = triton.TL + "debug_barrier"
_LANE = "lane:"
_LOOP = "loop:"
_LOADED = "loaded:"
_CONST = "const:"
#: The value every size the kernel leaves symbolic (block sizes, strides, lengths) takes when
#: positions are enumerated: small, so a tile has few positions, and the same for all, so a
#: row-major scratch of ``BLOCK`` columns has row stride ``BLOCK``.
_SAMPLE = 4
_MAX_POSITIONS = 1 << 16


@dataclass(frozen=True)
class Readback:
    """A load that reads, at ``reader`` (lane values in the kernel's ``tl.arange`` order), the
    element the store wrote at ``writer``."""

    store: Access
    load: Access
    reader: tuple[int, ...]
    writer: tuple[int, ...]
    #: the ``tl.arange`` each position coordinate runs over, as written in the kernel
    lanes: tuple[str, ...]


def cross_position_readbacks(ctx: "FileContext", kernel: "Kernel") -> list[Readback]:
    index = kernel_index(ctx, kernel)
    stores = [a for a in index.accesses if a.kind == "store" and a.pointer and a.offset is not None]
    if not stores:
        return []
    loads = [a for a in index.accesses if a.kind == "load" and a.pointer and a.offset is not None]
    barriers = [c.lineno for c in ctx.nodes(ast.Call)
                if kernel.node.lineno <= c.lineno <= (kernel.node.end_lineno or c.lineno)
                and ctx.call_name(c) == DEBUG_BARRIER]
    found = []
    for store in stores:
        store_end = store.node.end_lineno or store.node.lineno
        for load in loads:
            if load.pointer != store.pointer or load.node.lineno <= store_end:
                continue
            if any(store_end <= line <= load.node.lineno for line in barriers):
                continue
            if _volatile(load) or _exclusive_branches(ctx, store.node, load.node):
                continue
            readback = _readback(ctx, index, store, load)
            if readback is not None:
                found.append(readback)
    return found


def _volatile(load: Access) -> bool:
    flag = signature_argument(load.node, triton.SIGNATURES[triton.LOAD], "volatile")
    return not (flag is None or (isinstance(flag, ast.Constant) and flag.value is False))


def _exclusive_branches(ctx: "FileContext", a: ast.AST, b: ast.AST) -> bool:
    """True when ``a`` and ``b`` sit in the body and the ``else`` of one ``if``."""
    chain_a = list(ctx.ancestors(a))
    for ancestor in ctx.ancestors(b):
        if isinstance(ancestor, ast.If) and ancestor in chain_a:
            in_body = [any(n is s or _inside(ctx, n, s) for s in ancestor.body) for n in (a, b)]
            return in_body[0] != in_body[1]
    return False


def _inside(ctx: "FileContext", node: ast.AST, statement: ast.stmt) -> bool:
    return any(ancestor is statement for ancestor in ctx.ancestors(node))


def _canonical(ctx: "FileContext", index: KernelIndex, poly: Poly, ranges: dict) -> Poly | None:
    """``poly`` with each loop variable renamed after its loop's ``range(...)`` text (two loops
    over the same range visit the same values) and each lane after its range and the tile axis
    it is broadcast along (two ``tl.arange(0, B)`` along one axis are the same positions; their
    ranges go to ``ranges``); None when it holds a loaded value or an atom over a lane."""
    renames: dict[str, Poly] = {}
    for name in poly.symbols():
        if name.startswith(_LOADED) or (_LANE in name and not name.startswith(_LANE)):
            return None
        if name.startswith(_LANE):
            rng = index.symbols.ranges.get(name)
            if rng is None or rng.lo is None or rng.hi is None:
                return None
            canonical = f"{_LANE}{sx.render(rng.lo)}..{sx.render(rng.hi)}@{index.lane_axes.get(name, '-')}"
            ranges.setdefault(canonical, rng)
            renames[name] = sx.sym(canonical)
        if name.startswith(_LOOP):
            loop = _loop_node(ctx, name)
            if loop is None:
                return None
            renames[name] = sx.sym(f"{_LOOP}{ast.unparse(loop.iter)}:{ast.unparse(loop.target)}")
    return sx.substitute(poly, renames) if renames else poly


def _loop_node(ctx: "FileContext", symbol: str) -> ast.For | None:
    _, line, column, _ = symbol.split(":", 3)
    for node in ctx.nodes(ast.For):
        if node.lineno == int(line) and node.col_offset == int(column):
            return node
    return None


def _split(poly: Poly) -> tuple[Poly, Poly]:
    """(the terms with a lane, the rest)."""
    lane = tuple(t for t in poly.terms if any(s.startswith(_LANE) for s in t[0]))
    rest = tuple(t for t in poly.terms if not any(s.startswith(_LANE) for s in t[0]))
    return Poly(lane), Poly(rest)


def _readback(ctx, index: KernelIndex, store: Access, load: Access) -> Readback | None:
    ranges: dict = {}
    written, read = _canonical(ctx, index, store.offset, ranges), _canonical(ctx, index, load.offset, ranges)
    if written is None or read is None or written == read:
        return None
    written_lanes, written_base = _split(written)
    read_lanes, read_base = _split(read)
    shift = read_base - written_base
    if not all(name.startswith(_CONST) for name in shift.symbols()):
        return None  # another region (a pid, a loop step, a runtime size apart), or not decided
    read_lanes = read_lanes + shift
    lanes = tuple(sorted(s for s in written_lanes.symbols() | read_lanes.symbols() if s.startswith(_LANE)))
    if not lanes or any(len([s for s in m if s.startswith(_LANE)]) > 1 for m, _ in written_lanes.terms + read_lanes.terms):
        return None
    extents = []
    for lane in lanes:
        rng = ranges[lane]
        lo, hi = _sample(rng.lo), _sample(rng.hi)
        if lo is None or hi is None or hi < lo:
            return None
        extents.append(range(lo, hi + 1))
    total = 1
    for extent in extents:
        total *= len(extent)
    if total > _MAX_POSITIONS:
        return None
    stored: dict[int, tuple[int, ...]] = {}
    positions = list(itertools.product(*extents))
    for position in positions:
        address = _sample(written_lanes, dict(zip(lanes, position)))
        if address is None:
            return None
        stored.setdefault(address, position)
    for position in positions:
        values = dict(zip(lanes, position))
        address = _sample(read_lanes, values)
        if address is None:
            return None
        writer = stored.get(address)
        if writer is not None and _sample(written_lanes, values) != address:
            return Readback(store, load, position, writer, tuple(ranges[lane].label or lane for lane in lanes))
    return None


def _sample(poly: Poly, lanes: dict[str, int] | None = None) -> int | None:
    """``poly``'s value with ``lanes`` given and every other symbol at ``_SAMPLE``; None over an
    atom."""
    total = 0
    for monomial, coefficient in poly.terms:
        value = coefficient
        for name in monomial:
            if lanes is not None and name in lanes:
                value *= lanes[name]
            elif name.startswith(_LANE) or sx.atom_of(name) is not None:
                return None
            else:
                value *= _SAMPLE
        total += value
    return total
