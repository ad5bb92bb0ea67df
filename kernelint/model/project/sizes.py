"""Host-side sizes: which host expressions grow with the input tensors.

A *runtime size* is a value read from a tensor at run time: ``x.shape[i]``, ``x.size(i)``, a
name unpacked from ``x.shape`` / ``x.size()``, ``x.numel()``, ``len(x)``, or anything computed
from one (``triton.cdiv(T, BT)``, ``cu_seqlens.shape[0] - 1``). Rules use it to tell a grid axis,
a constexpr or a shape that follows the data from a constant or a tuning parameter. Host names are
followed through all their assignments; parameters of the host function are opaque (what a
caller passes is unknown), so they never count as runtime sizes.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core.walk import children

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_MAX_DEPTH = 8
#: Tensor methods that return a size or a shape.
_SIZE_METHODS = frozenset({"size", "numel", "dim"})


def _is_shape(node: ast.AST) -> bool:
    """``x.shape`` or ``x.size()`` (a whole shape, to be indexed or unpacked)."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return True
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == "size" and not node.args and not node.keywords
    )


def size_read(node: ast.AST) -> bool:
    """True when ``node`` itself reads a size from a tensor or a sequence."""
    if isinstance(node, ast.Subscript) and _is_shape(node.value):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _SIZE_METHODS:
            return True
        if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1:
            return True
    return False


def _unpacks_shape(definition_node: ast.AST) -> bool:
    """``B, T, H = q.shape`` (or ``q.size()``, ``q.shape[:3]``)."""
    if not isinstance(definition_node, ast.Assign):
        return False
    value = definition_node.value
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
        value = value.value
    return _is_shape(value) and any(isinstance(t, (ast.Tuple, ast.List)) for t in definition_node.targets)


def runtime_size(ctx: "FileContext", expr: ast.AST, depth: int = 0) -> ast.AST | None:
    """The first size read (see module doc) that ``expr`` is computed from, or None."""
    if depth > _MAX_DEPTH:
        return None
    for node in _walk_unbounded(expr):
        if size_read(node):
            return node
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for definition in ctx.definitions(node.id, node):
                if definition.kind in ("param", "def", "loop"):
                    continue
                if _unpacks_shape(definition.node):
                    return definition.node.value
                if definition.kind == "assign" and definition.value is not None:
                    found = runtime_size(ctx, definition.value, depth + 1)
                    if found is not None:
                        return found
    return None


def _walk_unbounded(expr: ast.AST):
    """``ast.walk`` that enters neither lambdas nor ``min(...)`` calls: a minimum is taken to cap
    its value (``BT = min(chunk_size, next_power_of_2(T))`` does not grow with ``T``)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "min":
            continue
        yield node
        stack.extend(children(node))


def product_factors(ctx: "FileContext", expr: ast.expr, depth: int = 0) -> list[ast.expr]:
    """The multiplicands of ``expr``, through names whose every assignment is a product of the
    same shape (``BH = B * H``). A name assigned anything else is one factor."""
    if depth > _MAX_DEPTH:
        return [expr]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return product_factors(ctx, expr.left, depth + 1) + product_factors(ctx, expr.right, depth + 1)
    if isinstance(expr, ast.Name):
        definitions = ctx.definitions(expr.id, expr)
        if len(definitions) == 1 and definitions[0].kind == "assign":
            value = definitions[0].value
            if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
                return product_factors(ctx, value, depth + 1)
    return [expr]


#: Functions that round their argument up to a power of two (``triton.next_power_of_2`` and the
#: helpers projects write for the same thing when they do not import Triton).
_POWER_OF_TWO_CEILINGS = frozenset({"next_power_of_2", "next_power_of_two", "next_pow2", "_next_power_of_2"})


def power_of_two_ceiling(ctx: "FileContext", expr: ast.expr, depth: int = 0) -> ast.expr | None:
    """The value ``expr`` rounds up to a power of two, when every value it may have does so with
    the same expression: ``next_power_of_2(N)``, ``1 << (N - 1).bit_length()``,
    ``2 ** (N - 1).bit_length()``, ``2 ** math.ceil(math.log2(N))``, or ``max(16, ...)`` of one.
    None when a value is anything else or the rounded value is a constant (nothing is rounded)."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        found = None
        values = list(ctx.values_of(expr))
        for value in values:
            rounded = power_of_two_ceiling(ctx, value, depth + 1) if value is not None else None
            if rounded is None or (found is not None and ast.dump(found) != ast.dump(rounded)):
                return None
            found = rounded
        return found
    rounded = _rounded_operand(expr)
    if rounded is None and isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "max":
        inner = [power_of_two_ceiling(ctx, a, depth + 1) for a in expr.args]
        inner = [r for r in inner if r is not None]
        rounded = inner[0] if len(inner) == 1 else None
        return rounded
    if rounded is None or ctx.resolve_int(rounded) is not None:
        return None
    return rounded


def _rounded_operand(expr: ast.expr) -> ast.expr | None:
    """``N`` of one power-of-two ceiling form written out (see ``power_of_two_ceiling``)."""
    from kernelint.model.core.calls import callee_name

    if isinstance(expr, ast.Call) and callee_name(expr.func) in _POWER_OF_TWO_CEILINGS and len(expr.args) == 1:
        return expr.args[0]
    if not isinstance(expr, ast.BinOp):
        return None
    base, exponent = expr.left, expr.right
    shift = isinstance(expr.op, ast.LShift) and isinstance(base, ast.Constant) and base.value == 1
    power = isinstance(expr.op, ast.Pow) and isinstance(base, ast.Constant) and base.value == 2
    if not (shift or power):
        return None
    # (N - 1).bit_length()
    if (isinstance(exponent, ast.Call) and isinstance(exponent.func, ast.Attribute)
            and exponent.func.attr == "bit_length" and not exponent.args):
        operand = exponent.func.value
        if isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Sub):
            return operand.left
        return operand
    # math.ceil(math.log2(N))
    if (isinstance(exponent, ast.Call) and callee_name(exponent.func) == "ceil" and len(exponent.args) == 1
            and isinstance(exponent.args[0], ast.Call) and callee_name(exponent.args[0].func) == "log2"
            and len(exponent.args[0].args) == 1):
        return exponent.args[0].args[0]
    return None
