"""Tile indices in Triton kernels: values that count tiles (a ``tl.program_id`` that no tile size
has scaled, the variable of a step-1 loop over ``cdiv(n, BLOCK)`` tiles) as opposed to element
offsets. Answers "is this summand a tile number", conservatively: any multiply in its definition
chain, any memory read or any call other than the index arithmetic makes it "no"."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core import dataflow
from kernelint.model.core.memo import remembered
from kernelint.model.dsl import triton

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_INDEX_OPS = (ast.FloorDiv, ast.Mod, ast.Add, ast.Sub)
_INDEX_CALLS = frozenset({triton.PROGRAM_ID, triton.NUM_PROGRAMS, *triton.CDIVS,
                          triton.TL + "minimum", triton.TL + "maximum"})
_RANGES = frozenset({triton.RANGE, triton.STATIC_RANGE})


def counts_tiles(ctx: "FileContext", bound: ast.expr) -> bool:
    """True when ``bound`` is a number of tiles: ``cdiv(n, BLOCK)`` or ``(n + BLOCK - 1) // BLOCK``,
    directly or through names."""

    def match(node: ast.AST) -> bool:
        if ctx.call_name(node) in triton.CDIVS:
            return True
        return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv)
                and isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Sub)
                and isinstance(node.left.left, ast.BinOp) and isinstance(node.left.left.op, ast.Add))

    return dataflow.reaches(ctx, bound, match) is not None


def _tile_loop(ctx: "FileContext", name: ast.Name) -> ast.For | None:
    """The ``for name in range(n_tiles)`` loop (step 1, from 0) binding ``name``, if that is its
    only binding."""
    definitions = ctx.definitions(name.id, name)
    if len(definitions) != 1 or definitions[0].kind != "loop" or not isinstance(definitions[0].node, ast.For):
        return None
    loop = definitions[0].node
    if not (isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)):
        return None
    iterator = loop.iter
    builtin_range = isinstance(iterator.func, ast.Name) and iterator.func.id == "range"
    if not (builtin_range or ctx.call_name(iterator) in _RANGES) or iterator.keywords:
        return None
    args = iterator.args
    if len(args) == 1:
        bound = args[0]
    elif len(args) in (2, 3) and ctx.resolve_int(args[0]) == 0 and (len(args) == 2 or ctx.resolve_int(args[2]) == 1):
        bound = args[1]
    else:
        return None
    return loop if counts_tiles(ctx, bound) else None


def tile_index(ctx: "FileContext", term: ast.expr) -> str | None:
    """How ``term`` counts tiles (for a message), or None when it may be an element offset."""
    return remembered(ctx, "tile_index", term, lambda: _tile_index(ctx, term))


def _tile_index(ctx: "FileContext", term: ast.expr) -> str | None:
    if isinstance(term, ast.Name):
        loop = _tile_loop(ctx, term)
        if loop is not None:
            return f"the tile counter `{term.id}` of `{ast.unparse(loop.iter)}`"
    seen_program_id = []

    def unscaled(node: ast.AST) -> bool:
        """Matches what makes ``term`` something other than a tile number."""
        if isinstance(node, ast.BinOp):
            return not isinstance(node.op, _INDEX_OPS)
        if isinstance(node, ast.Call):
            name = ctx.call_name(node)
            if name == triton.PROGRAM_ID:
                seen_program_id.append(node)
            return name not in _INDEX_CALLS
        parent = ctx.parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            return False
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return any(d.kind not in ("assign", "param") for d in ctx.definitions(node.id, node))
        return isinstance(node, (ast.Subscript, ast.Attribute, ast.IfExp, ast.Compare, ast.BoolOp))

    if dataflow.reaches(ctx, term, unscaled) is not None or not seen_program_id:
        return None
    return f"the program index `{ast.unparse(term)}`"
