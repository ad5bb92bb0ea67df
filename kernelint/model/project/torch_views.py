"""Host-side torch views: which expressions hand a kernel a tensor whose data pointer is offset
from the start of its allocation (a slice, ``narrow``, ``select``), through the views and names
that keep that pointer."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core.calls import argument
from kernelint.model.core.reaching import value_at

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


#: Tensor methods and attributes that keep the data pointer of the tensor they are called on.
_POINTER_PRESERVING = frozenset({
    "view", "view_as", "t", "transpose", "permute", "unsqueeze", "squeeze", "expand",
    "expand_as", "detach", "requires_grad_", "T", "mT", "data",
})


def _nonzero(ctx: "FileContext", expr: ast.expr | None) -> bool:
    """True when ``expr`` is present and not shown to be zero (an unknown start may be nonzero)."""
    return expr is not None and ctx.resolve_int(expr) != 0


def _offset_slice(ctx: "FileContext", index: ast.expr) -> bool:
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(p, ast.Slice) and _nonzero(ctx, p.lower) for p in parts)


def _method(node: ast.expr) -> tuple[str, ast.expr] | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr, node.func.value
    return None


def offset_view(ctx: "FileContext", expr: ast.expr, depth: int = 6) -> ast.expr | None:
    """The view expression that makes ``expr`` a torch tensor whose data pointer is offset from its
    allocation (``t[1:]``, ``t[:, 3:]``, ``t.narrow(0, 1, n)``, ``t.as_strided(..., offset)``),
    following pointer-preserving methods and the last assignment of a local name. None when the
    tensor is a fresh allocation, a copy, or cannot be told."""
    if depth <= 0:
        return None
    if isinstance(expr, ast.Subscript):
        return expr if _offset_slice(ctx, expr.slice) else offset_view(ctx, expr.value, depth - 1)
    if isinstance(expr, ast.Attribute) and expr.attr in _POINTER_PRESERVING:
        return offset_view(ctx, expr.value, depth - 1)
    if isinstance(expr, ast.Name):
        value = value_at(ctx, expr)
        return offset_view(ctx, value, depth - 1) if value is not None else None
    if not isinstance(expr, ast.Call):
        return None
    qualname = ctx.call_name(expr) or ""
    if qualname == "torch.narrow" and _nonzero(ctx, argument(expr, "start", 2)):
        return expr
    if qualname == "torch.as_strided" and _nonzero(ctx, argument(expr, "storage_offset", 3)):
        return expr
    method = _method(expr)
    if method is None or qualname.startswith("torch."):
        return None
    name, receiver = method
    if name == "narrow" and _nonzero(ctx, argument(expr, "start", 1)):
        return expr
    if name == "as_strided" and _nonzero(ctx, argument(expr, "storage_offset", 2)):
        return expr
    if name in _POINTER_PRESERVING:
        return offset_view(ctx, receiver, depth - 1)
    if name == "contiguous":  # returns the view itself when it is contiguous already
        inner = offset_view(ctx, receiver, depth - 1)
        return inner if inner is not None and _leading_offset(ctx, inner) else None
    return None


def _leading_offset(ctx: "FileContext", view: ast.expr) -> bool:
    """``view`` offsets only the first dimension (``t[1:]``, ``t[1:, :]``, ``t.narrow(0, ...)``):
    a contiguous tensor stays contiguous, so ``.contiguous()`` keeps the offset pointer."""
    if isinstance(view, ast.Subscript):
        parts = view.slice.elts if isinstance(view.slice, ast.Tuple) else [view.slice]
        return all(
            isinstance(p, ast.Slice) and p.upper is None and p.step is None and p.lower is None
            for p in parts[1:]
        ) and isinstance(parts[0], ast.Slice)
    if isinstance(view, ast.Call) and ctx.call_name(view) == "torch.narrow":
        return ctx.resolve_int(argument(view, "dim", 1)) == 0
    method = _method(view) if isinstance(view, ast.Call) else None
    return method is not None and method[0] == "narrow" and ctx.resolve_int(argument(view, "dim", 0)) == 0

