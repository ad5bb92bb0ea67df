"""Loop facts for pipelined kernels: what a loop assigns, which index wraps around a ring
(``% stages``) and whether a loop runs at most a given number of times; and for host loops over
the items of a sequence, which names (or ``seq[i]`` subscripts) stand for the current item."""
from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core.values import assigned_names
from kernelint.model.core.walk import children

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


def _body_nodes(loop: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``loop``'s body and ``else``, not descending into nested functions."""
    stack = [*getattr(loop, "body", ()), *getattr(loop, "orelse", ())]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(children(node))


def assigned_in(loop: ast.AST, name: str) -> list[ast.AST]:
    """Statements in ``loop`` that (re)bind ``name``: assignments, augmented assignments,
    walrus, nested ``for`` targets and ``with ... as``."""
    return [node for node in _body_nodes(loop) if name in assigned_names(node)]


def _is_mod(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)


def _varies_in(loop: ast.AST, expr: ast.expr) -> bool:
    """True when some name in ``expr`` is the loop's own target or is rebound inside it."""
    target = getattr(loop, "target", None)  # a while loop has none
    own = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)} if target is not None else set()
    return any(
        isinstance(n, ast.Name) and (n.id in own or assigned_in(loop, n.id)) for n in ast.walk(expr)
    )


def ring_modulus(loop: ast.AST, index: ast.expr) -> ast.expr | None:
    """When ``index`` (a barrier or buffer index expression) wraps around a ring inside ``loop``,
    the ring size expression (``s % NUM_STAGES`` -> ``NUM_STAGES``; for a reset, the compared
    bound). The index wraps when it holds ``k % N`` with ``k`` changing in the loop, or names a
    variable that the loop binds to a ``% N`` expression (``s = k % N``, ``s = (s + 1) % N``,
    ``s %= N``) or resets to zero (``if s == N: s = 0``)."""
    for node in ast.walk(index):
        if _is_mod(node) and _varies_in(loop, node.left):
            return node.right
    for node in ast.walk(index):
        if not isinstance(node, ast.Name):
            continue
        for stmt in assigned_in(loop, node.id):
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Mod):
                return stmt.value
            value = getattr(stmt, "value", None)
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and value is not None:
                mod = next((n for n in ast.walk(value) if _is_mod(n)), None)
                if mod is not None:
                    return mod.right
        bound = _reset_bound(loop, node.id)
        if bound is not None:
            return bound
    return None


def _reset_bound(loop: ast.AST, name: str) -> ast.expr | None:
    """``N`` of an ``if name == N: name = 0`` (or ``>=``) reset of a ring index in ``loop``."""
    for node in _body_nodes(loop):
        if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
            continue
        test = node.test
        if not (isinstance(test.left, ast.Name) and test.left.id == name
                and isinstance(test.ops[0], (ast.Eq, ast.GtE))):
            continue
        if any(
            isinstance(stmt, ast.Assign) and _is_zero(stmt.value)
            and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
            for stmt in node.body
        ):
            return test.comparators[0]
    return None


def _is_zero(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Call) and len(expr.args) == 1:  # cutlass.Int32(0)
        expr = expr.args[0]
    return isinstance(expr, ast.Constant) and expr.value == 0


def trip_count_at_most(ctx: "FileContext", loop: ast.AST, bound: ast.expr) -> bool:
    """True when ``loop`` is shown to run no more than ``bound`` times: ``for _ in range(N)``
    over the same ``N`` (spelled alike, or both folding to ints with the count not larger)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, ast.Call):
        return False
    args = loop.iter.args
    if len(args) != 1:
        return False
    if ast.dump(args[0]) == ast.dump(bound):
        return True
    count, limit = ctx.resolve_int(args[0]), ctx.resolve_int(bound)
    return count is not None and limit is not None and count <= limit


@dataclass(frozen=True)
class ItemLoop:
    """``for x in seq`` / ``for i, x in enumerate(seq)`` / ``for x, y in zip(a, b)`` /
    ``for i in range(len(seq))``: ``sequences`` are the iterated expressions, ``item_names`` the
    names bound to one item, ``index`` the name of a ``range(len(seq))`` index (items are then
    ``seq[index]``)."""

    loop: ast.For
    sequences: tuple[ast.expr, ...]
    item_names: frozenset[str]
    index: str | None = None

    def is_item(self, expr: ast.AST) -> bool:
        """``expr`` is the current item: an item name, or ``seq[index]`` for an iterated ``seq``."""
        if isinstance(expr, ast.Name):
            return expr.id in self.item_names
        return (
            self.index is not None
            and isinstance(expr, ast.Subscript)
            and isinstance(expr.slice, ast.Name)
            and expr.slice.id == self.index
            and any(ast.dump(expr.value) == ast.dump(s) for s in self.sequences)
        )


def _call_name(node: ast.AST) -> str | None:
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None


def _literal_constants(node: ast.AST) -> bool:
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(
        isinstance(e, ast.Constant) or (isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name))
        for e in node.elts
    )


def item_loop(loop: ast.AST) -> ItemLoop | None:
    """The item view of ``loop``, or None when it does not iterate over a sequence's items
    (``range(n)``, literal lists of constants such as block sizes or dtypes, ``while``)."""
    if not isinstance(loop, ast.For) or _literal_constants(loop.iter):
        return None
    target, iterable = loop.target, loop.iter
    name = _call_name(iterable)
    if name == "range":
        args = iterable.args
        if (len(args) == 1 and _call_name(args[0]) == "len" and len(args[0].args) == 1
                and isinstance(target, ast.Name)):
            return ItemLoop(loop, (args[0].args[0],), frozenset(), target.id)
        return None
    if name == "enumerate" and iterable.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        item = target.elts[1]
        if isinstance(item, ast.Name):
            return ItemLoop(loop, (iterable.args[0],), frozenset({item.id}))
        return None
    if name == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(iterable.args):
        names = frozenset(e.id for e in target.elts if isinstance(e, ast.Name))
        return ItemLoop(loop, tuple(iterable.args), names) if names else None
    if name in ("range", "enumerate", "zip") or not isinstance(target, ast.Name):
        return None
    return ItemLoop(loop, (iterable,), frozenset({target.id}))


# --- sums carried across loop iterations ---------------------------------------------------------

def accumulation_target(node: ast.AST) -> tuple[str, ast.expr] | None:
    """``(name, target)`` when statement ``node`` adds into ``name`` or ``name[i]``: ``acc += x``,
    ``acc -= x``, ``acc = acc + x``, ``acc[i] += x``, ``acc[i] = acc[i] + x``."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
        target = node.target
    elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.BinOp)
          and isinstance(node.value.op, (ast.Add, ast.Sub))
          and ast.unparse(node.value.left) == ast.unparse(node.targets[0])):
        target = node.targets[0]
    else:
        return None
    base = target.value if isinstance(target, ast.Subscript) else target
    return (base.id, target) if isinstance(base, ast.Name) else None


@dataclass(frozen=True)
class CarriedSum:
    """An accumulator updated inside ``loop`` and nowhere else in it; ``initial`` holds the
    values it is bound to outside the loop (its starting values)."""

    name: str
    target: ast.expr
    loop: ast.AST
    initial: tuple[ast.expr | None, ...]


def carried_sum(ctx: "FileContext", node: ast.AST, updates=accumulation_target) -> CarriedSum | None:
    """The sum statement ``node`` carries across a loop: ``updates(statement)`` gives
    ``(name, target)`` for a statement that adds into an accumulator (``accumulation_target``
    by default). The loop is the innermost one whose own variable does not pick the element
    (``for i: acc[i] = acc[i] + x[i]`` adds once per element and carries nothing). None unless
    every binding of the name inside that loop is such an update."""
    found = updates(node)
    if found is None:
        return None
    name, target = found
    index = target.slice if isinstance(target, ast.Subscript) else None
    picked = {n.id for n in ast.walk(index) if isinstance(n, ast.Name)} if index is not None else set()
    loop = next((lp for lp in ctx.loops_of(node) if not picked & _own_variables(lp)), None)
    if loop is None:
        return None
    initial = []
    for definition in ctx.definitions(name, node):
        is_update = _updates_name(updates, definition.node, name)
        if any(a is loop for a in ctx.ancestors(definition.node)):
            if not is_update:
                return None
        elif not is_update:
            initial.append(definition.value)
    return CarriedSum(name, target, loop, tuple(initial))


def _updates_name(updates, statement: ast.AST, name: str) -> bool:
    found = updates(statement)
    return found is not None and found[0] == name


def _own_variables(loop: ast.AST) -> set[str]:
    target = getattr(loop, "target", None)
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)} if target is not None else set()
