"""Host sizes that change from one call to the next: a tensor's element count and its leading
dimension (batch, tokens, rows). Narrower than ``sizes.runtime_size`` (any size read): answers
"does this launch argument take a new value for every new batch", so trailing dimensions (head
size, hidden size), which are model constants, do not count. A value bucketed with
``triton.next_power_of_2``, clamped with ``min``/``max``, turned into a flag by a comparison or
divided by a large constant is bounded and not followed; only arithmetic and ceiling division
carry a size on."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core import dataflow
from kernelint.model.dsl import triton

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

#: Calls a size passes through unchanged in kind (a count of tiles is still per call).
_ARITHMETIC_CALLS = frozenset({*triton.CDIVS, "int", "math.ceil", "math.floor", "abs"})


def _is_shape(node: ast.AST) -> bool:
    """``x.shape`` or ``x.size()``."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
            and not node.args and not node.keywords)


def _leading_dimension(node: ast.AST) -> bool:
    """``x.shape[0]``, ``x.size()[0]``, ``x.size(0)``, ``x.numel()``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0:
        return _is_shape(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "numel" and not node.args:
            return True
        if node.func.attr == "size" and len(node.args) == 1:
            return isinstance(node.args[0], ast.Constant) and node.args[0].value == 0
    return False


def _unpacked_leading_dimension(ctx: "FileContext", name: ast.Name) -> bool:
    """True when ``name`` is the first name unpacked from a shape (``M, K = x.shape``)."""
    for definition in ctx.definitions(name.id, name):
        node = definition.node
        if definition.kind != "opaque" or not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0]
        if (isinstance(target, (ast.Tuple, ast.List)) and target.elts and isinstance(target.elts[0], ast.Name)
                and target.elts[0].id == name.id and _is_shape(node.value)):
            return True
    return False


#: Dividing a size by at least this much buckets it on purpose (``cdiv(T, 65536)``); a tile
#: count (``cdiv(n, BLOCK)``, blocks up to a few thousand elements) still takes a value per size.
_COARSE_DIVISOR = 16384


def _coarse(ctx: "FileContext", divisor: ast.expr) -> bool:
    value = ctx.resolve_int(divisor)
    return value is not None and value >= _COARSE_DIVISOR


def per_call_size(ctx: "FileContext", expr: ast.expr) -> ast.AST | None:
    """The leading-dimension or element-count read that ``expr`` is computed from, or None."""

    def stops(node: ast.AST) -> bool:
        """Only arithmetic carries a size on: a comparison makes a flag, ``min``, ``max`` and
        ``next_power_of_2`` bound it, and any other call or lookup (``torch.empty((N, M))``,
        ``x.stride(0)``, ``cfg[N]``) computes something else from it."""
        if isinstance(node, (ast.Compare, ast.BoolOp, ast.Subscript, ast.Attribute, ast.Lambda)):
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
            return _coarse(ctx, node.right)
        if isinstance(node, ast.Call):
            name = ctx.call_name(node) or (node.func.id if isinstance(node.func, ast.Name) else None)
            if name in triton.CDIVS and len(node.args) == 2:
                return _coarse(ctx, node.args[1])
            return name not in _ARITHMETIC_CALLS
        return False

    def match(node: ast.AST) -> bool:
        if _leading_dimension(node):
            return True
        return isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and _unpacked_leading_dimension(ctx, node)

    return dataflow.reaches(ctx, expr, match, prune=stops)
