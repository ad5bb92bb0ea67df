"""What a Triton kernel's ``tl.static_assert`` calls pin down at compile time.

``tl.static_assert(n == 4)`` fails compilation for any other ``n``, so inside that kernel ``n`` is
at most 4 wherever the kernel compiles: a fact as good as a literal for questions about sizes
(whether a tile can take a tensor-core path at all). Comparisons of a name with a constant are
read (``==``, ``<=``, ``<``, and the same with the constant on the left), also joined by
``and``; anything else says nothing.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.dsl import triton
from kernelint.model.core.walk import subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


def upper_bounds(ctx: "FileContext", function: ast.AST) -> dict[str, int]:
    """Name -> the largest value the ``tl.static_assert`` calls in ``function`` allow it."""
    cache = ctx.__dict__.setdefault("_static_assert_bounds", {})
    if id(function) in cache:
        return cache[id(function)]
    bounds: dict[str, int] = {}
    for node in subtree(function):
        if isinstance(node, ast.Call) and node.args and ctx.call_name(node) == triton.STATIC_ASSERT:
            for name, bound in _bounds(ctx, node.args[0]):
                bounds[name] = min(bound, bounds.get(name, bound))
    cache[id(function)] = bounds
    return bounds


_FLIPPED = {ast.Eq: ast.Eq, ast.LtE: ast.GtE, ast.Lt: ast.Gt, ast.GtE: ast.LtE, ast.Gt: ast.Lt}


def _bounds(ctx: "FileContext", test: ast.expr):
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for value in test.values:
            yield from _bounds(ctx, value)
        return
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return
    left, op, right = test.left, type(test.ops[0]), test.comparators[0]
    if not isinstance(left, ast.Name) and isinstance(right, ast.Name) and op in _FLIPPED:
        left, right, op = right, left, _FLIPPED[op]
    if not isinstance(left, ast.Name):
        return
    constant = ctx.resolve_int(right)
    if constant is None:
        return
    if op in (ast.Eq, ast.LtE):
        yield left.id, constant
    elif op is ast.Lt:
        yield left.id, constant - 1


def bounded_int(ctx: "FileContext", expr: ast.expr, function: ast.AST | None) -> int | None:
    """``expr``'s value when it folds, else the bound ``function``'s static asserts give a name."""
    value = ctx.resolve_int(expr)
    if value is not None or function is None or not isinstance(expr, ast.Name):
        return value
    return upper_bounds(ctx, function).get(expr.id)
