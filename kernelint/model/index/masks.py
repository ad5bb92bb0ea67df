"""Masked loads in Triton kernels: which loads feed a value, which axis of a tile a load's mask
cuts, and which block size spans that axis.

A block is padded when its ``tl.arange(0, BLOCK)`` is longer than the data: the load then
carries a mask such as ``cols < n_cols`` and the lanes past ``n_cols`` hold ``other`` (or
nothing defined, without ``other``). Reductions over such a block see the padding: a mean must
divide by ``n_cols``, not ``BLOCK``; a max needs ``other=-inf``. This module answers the
questions both rules ask: ``loads_feeding`` (the ``tl.load`` calls whose values a kernel value
is computed from, not looking through other loads' addresses) and ``padded_axes`` (for one
masked load, the axes its mask cuts and the block-size name whose arange spans each).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core.calls import signature_argument
from kernelint.model.core.dataflow import COLS, ROWS, broadcast_operand, reaches
from kernelint.model.dsl import triton
from kernelint.model.core.reaching import walk_value

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_LOAD_SIGNATURE = triton.SIGNATURES[triton.LOAD]
_DEPTH = 16


def loads_feeding(ctx: "FileContext", expr: ast.AST, through=lambda node: True) -> list[ast.Call]:
    """The ``tl.load`` calls ``expr``'s value is computed from, following each name to the
    bindings that reach that use (so ``x = tl.where(m, x, -inf)`` hides the load before it),
    through arithmetic and calls for which ``through(node)`` holds, never into addresses."""
    found: list[ast.Call] = []

    def descend(node: ast.AST) -> bool:
        if ctx.is_call(node, triton.LOAD):
            found.append(node)
            return False
        return through(node)

    walk_value(ctx, expr, descend, _DEPTH)
    return found


@dataclass(frozen=True)
class PaddedAxis:
    """An axis a load's mask cuts. ``block`` names the constexpr whose ``tl.arange(0, block)``
    spans it, ``bound`` is what the lanes are compared with (``n_cols`` in ``cols < n_cols``);
    ``axis`` is None for a 1D load, else ROWS or COLS."""

    axis: int | None
    block: str
    bound: ast.expr


def padded_axes(ctx: "FileContext", load: ast.Call) -> list[PaddedAxis]:
    """The axes of ``load``'s tile that its mask cuts with a comparison of a ``tl.arange(0, B)``
    vector against a bound other than ``B`` itself (``cols < B`` cuts nothing)."""
    mask = signature_argument(load, _LOAD_SIGNATURE, "mask")
    pointer = signature_argument(load, _LOAD_SIGNATURE, "pointer")
    if mask is None or pointer is None:
        return []
    found = []
    for compare in _comparisons(ctx, mask):
        lanes, bound = _lanes_and_bound(compare)
        if lanes is None:
            continue
        for arange, axis in _aranges_with_axis(ctx, lanes):
            block = _block_name(ctx, arange)
            if block is None or (isinstance(bound, ast.Name) and bound.id == block):
                continue
            if not _pointer_uses(ctx, pointer, arange):
                continue
            found.append(PaddedAxis(axis, block, bound))
    return found


def _comparisons(ctx: "FileContext", mask: ast.AST) -> list[ast.Compare]:
    found: list[ast.Compare] = []

    def match(node: ast.AST) -> bool:
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Lt, ast.LtE)):
            found.append(node)
        return False

    reaches(ctx, mask, match, prune=lambda n: ctx.is_call(n, triton.LOAD))
    return found


def _lanes_and_bound(compare: ast.Compare) -> tuple[ast.expr | None, ast.expr | None]:
    return compare.left, compare.comparators[0]


def _aranges_with_axis(ctx: "FileContext", lanes: ast.expr) -> list[tuple[ast.Call, int | None]]:
    """The aranges in ``lanes`` with the axis they are broadcast along (None: not broadcast)."""
    found: list[tuple[ast.Call, int | None]] = []
    broadcast: dict[int, int] = {}

    def note_broadcast(node: ast.AST) -> bool:
        operand = broadcast_operand(ctx, node)
        if operand is not None:
            reaches(ctx, operand[0], lambda n: _record(ctx, n, broadcast, operand[1]))
        return False

    reaches(ctx, lanes, note_broadcast, prune=lambda n: ctx.is_call(n, triton.LOAD))

    def collect(node: ast.AST) -> bool:
        if ctx.is_call(node, triton.ARANGE) and all(f[0] is not node for f in found):
            found.append((node, broadcast.get(id(node))))
        return False

    reaches(ctx, lanes, collect, prune=lambda n: ctx.is_call(n, triton.LOAD))
    return found


def _record(ctx: "FileContext", node: ast.AST, broadcast: dict[int, int], axis: int) -> bool:
    if ctx.is_call(node, triton.ARANGE):
        broadcast[id(node)] = axis
    return False


def _block_name(ctx: "FileContext", arange: ast.Call) -> str | None:
    """``B`` in ``tl.arange(0, B)`` when ``B`` is a name."""
    start = signature_argument(arange, triton.SIGNATURES[triton.ARANGE], "start")
    end = signature_argument(arange, triton.SIGNATURES[triton.ARANGE], "end")
    if start is None or ctx.resolve_int(start) != 0 or not isinstance(end, ast.Name):
        return None
    return end.id


def _pointer_uses(ctx: "FileContext", pointer: ast.expr, arange: ast.Call) -> bool:
    return reaches(ctx, pointer, lambda n: n is arange, prune=lambda n: ctx.is_call(n, triton.LOAD)) is not None


def reduction_axis(ctx: "FileContext", call: ast.Call) -> int | None | str:
    """The ``axis`` a reduction call reduces over: an int, None (all axes), or ``"unknown"``."""
    axis = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "axis"), None)
    if axis is None:
        return None
    if isinstance(axis, ast.Constant) and axis.value is None:
        return None
    value = ctx.resolve_int(axis)
    return value if value is not None else "unknown"


def axis_matches(padded: PaddedAxis, reduced: int | None | str) -> bool:
    """A reduction over ``reduced`` covers the padded axis (1D loads: any reduction does)."""
    if reduced == "unknown":
        return False
    if padded.axis is None or reduced is None:
        return True
    return reduced in (padded.axis, padded.axis - 2) and padded.axis in (ROWS, COLS)
