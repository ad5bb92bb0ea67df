"""Where values come from: assignments per scope and constant folding of integer expressions."""
from __future__ import annotations

import ast
import operator
import threading
from dataclasses import dataclass

ScopeNode = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef


@dataclass(frozen=True)
class Definition:
    """One binding of a name. ``value`` is the expression bound, or None when the binding is
    opaque (a parameter, a loop variable, a tuple unpacked from a call, an augmented assignment)."""

    node: ast.AST
    value: ast.expr | None
    kind: str  # "assign", "augassign", "param", "loop", "with", "def", "opaque"


_FOLD = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.Pow: operator.pow,
}


def _bind_target(target: ast.AST, value: ast.expr | None, stmt: ast.AST, kind: str, out):
    if isinstance(target, ast.Name):
        out(target.id, Definition(stmt, value, kind))
    elif isinstance(target, (ast.Tuple, ast.List)):
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
        if values is not None and len(values) != len(target.elts):
            values = None
        for i, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                element = element.value
            _bind_target(element, values[i] if values else None, stmt, kind if values else "opaque", out)
    elif isinstance(target, ast.Starred):
        _bind_target(target.value, None, stmt, "opaque", out)


def bindings(node: ast.AST):
    """Yield (name, Definition) for every name ``node`` binds in its own scope."""
    found: list[tuple[str, Definition]] = []

    def out(name, definition):
        found.append((name, definition))

    if isinstance(node, ast.Assign):
        for target in node.targets:
            _bind_target(target, node.value, node, "assign", out)
    elif isinstance(node, ast.AnnAssign):
        if node.value is not None:
            _bind_target(node.target, node.value, node, "assign", out)
    elif isinstance(node, ast.AugAssign):
        _bind_target(node.target, None, node, "augassign", out)
    elif isinstance(node, ast.NamedExpr):
        _bind_target(node.target, node.value, node, "assign", out)
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        _bind_target(node.target, None, node, "loop", out)
    elif isinstance(node, ast.comprehension):  # positionless node: the target stands for it
        _bind_target(node.target, None, node.target, "loop", out)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        _bind_target(node.optional_vars, None, node.optional_vars, "with", out)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            found.append((arg.arg, Definition(arg, None, "param")))
        for arg in (args.vararg, args.kwarg):
            if arg is not None:
                found.append((arg.arg, Definition(arg, None, "param")))
    return found


def assigned_names(node: ast.AST) -> set[str]:
    """Names ``node`` binds in the scope it runs in: assignment targets, loop and ``with``
    targets, a ``def``'s or ``class``'s own name; not a function's parameters."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Lambda):
        return set()
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return {name for name, _ in bindings(node)}


BINDING_NODES = (
    ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor,
    ast.comprehension, ast.withitem, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
)


#: Folded integers wider than this are given up on: no kernel constant comes near it, and
#: without a bound ``1 << (1 << 34)`` in a checked file would cost gigabytes.
MAX_FOLD_BITS = 1024
#: Expression nodes one outermost ``fold_int`` call may visit, names looked up through
#: ``lookup`` included: a chain of names each used many times would otherwise cost
#: exponential time.
MAX_FOLD_STEPS = 10_000


class _Budget(threading.local):
    steps = 0
    depth = 0


_budget = _Budget()


def fold_int(expr: ast.AST, lookup) -> int | None:
    """Fold ``expr`` to an int using ``lookup(name_node) -> int | None`` for names; None when it
    is not a constant, or when the value or the work would exceed the bounds above. Calls made
    from inside ``lookup`` share the outermost call's step budget."""
    if _budget.depth == 0:
        _budget.steps = 0
    _budget.depth += 1
    try:
        return _fold(expr, lookup)
    finally:
        _budget.depth -= 1


def _fold(expr: ast.AST, lookup) -> int | None:
    _budget.steps += 1
    if _budget.steps > MAX_FOLD_STEPS:
        return None
    if isinstance(expr, ast.Constant):
        value = expr.value
        if isinstance(value, int) and not isinstance(value, bool):
            return value if value.bit_length() <= MAX_FOLD_BITS else None
        return None
    if isinstance(expr, ast.Name):
        return lookup(expr)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _fold(expr.operand, lookup)
        return -inner if inner is not None else None
    if isinstance(expr, ast.BinOp) and type(expr.op) in _FOLD:
        left = _fold(expr.left, lookup)
        if left is None:
            return None
        right = _fold(expr.right, lookup)
        if right is None or _too_wide(expr.op, left, right):
            return None
        try:
            result = _FOLD[type(expr.op)](left, right)
        except (ZeroDivisionError, ValueError, OverflowError):
            return None
        return result if result.bit_length() <= MAX_FOLD_BITS else None
    return None


def _too_wide(op: ast.operator, left: int, right: int) -> bool:
    """Whether ``left op right`` could exceed MAX_FOLD_BITS, judged before computing it."""
    if isinstance(op, ast.Pow):
        return right < 0 or right > 64 or left.bit_length() * right > MAX_FOLD_BITS
    if isinstance(op, ast.LShift):
        return right > MAX_FOLD_BITS or left.bit_length() + right > MAX_FOLD_BITS
    if isinstance(op, ast.Mult):
        return left.bit_length() + right.bit_length() > MAX_FOLD_BITS + 1
    return False


def base_name(expr: ast.expr) -> ast.Name | None:
    """The name a subscripted expression views: ``tXsX`` in ``tXsX[None, m, None]``; None when
    the base is not a plain name."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return expr if isinstance(expr, ast.Name) else None
