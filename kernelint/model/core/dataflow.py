"""Dataflow facts inside Triton kernels: which values come from memory, how a pointer expression
is assembled from broadcast offsets, strides and a base, and what a loop accumulates.

Names are followed through their assignments in the enclosing function (augmented assignments
contribute their right-hand side, so a loop-carried ``ptrs += BLOCK_K * stride`` is seen). Loop
variables and parameters are opaque: a loop index derived from a loaded bound is an index, not a
stride, and a kernel argument is what the caller passed.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterator, TypeVar

from kernelint.model.core.calls import argument
from kernelint.model.core.values import assigned_names

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

from kernelint.model.dsl.triton import ARANGE, CAST, DOT, EXPAND_DIMS, LOAD, POINTER_TYPE, REDUCTIONS
from kernelint.model.dsl.triton import VALUE_HINTS as _HINTS
from kernelint.model.core.memo import kept_on, remembered
from kernelint.model.core.walk import children

_MAX_DEPTH = 16
_POINTER_TYPE_CALLS = frozenset({POINTER_TYPE})
T = TypeVar("T")

ROWS, COLS = 0, 1


def bound_values(ctx: "FileContext", name: ast.Name) -> list[ast.expr]:
    """Expressions assigned to ``name`` in its scope (augmented assignments give their operand).
    Parameters, loop variables and unpacked call results give nothing."""
    values = []
    for definition in ctx.definitions(name.id, name):
        if definition.kind == "assign" and definition.value is not None:
            values.append(definition.value)
        elif definition.kind == "augassign" and isinstance(definition.node, ast.AugAssign):
            values.append(definition.node.value)
    return values


def reaches(
    ctx: "FileContext",
    expr: ast.AST,
    match: Callable[[ast.AST], bool],
    prune: Callable[[ast.AST], bool] = lambda node: False,
) -> ast.AST | None:
    """The first node matching ``match`` in ``expr`` or in what its names were assigned,
    transitively; subtrees for which ``prune`` holds are not entered."""
    seen: set[int] = set()
    stack: list[tuple[ast.AST, int]] = [(expr, 0)]
    while stack:
        node, depth = stack.pop()
        if match(node):
            return node
        if prune(node):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and depth < _MAX_DEPTH:
            for value in bound_values(ctx, node):
                if id(value) not in seen:
                    seen.add(id(value))
                    stack.append((value, depth + 1))
        elif not isinstance(node, ast.Lambda):
            stack.extend((child, depth) for child in children(node))
    return None


def _successors(ctx: "FileContext", node: ast.AST, prune) -> list[ast.AST] | tuple[ast.AST, ...]:
    """Where ``reaches`` goes on from ``node``: a read name's assigned values, else its children."""
    if prune is not None and prune(node):
        return ()
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        return bound_values(ctx, node)
    return () if isinstance(node, ast.Lambda) else children(node)


def reached_union(ctx: "FileContext", expr: ast.AST, question: str, label: Callable[[ast.AST], T],
                  prune: Callable[[ast.AST], bool] | None = None) -> T:
    """``label(n)`` joined with ``|`` over every node ``n`` that ``reaches`` would visit from
    ``expr`` (``prune`` as there), kept per node for ``question``. The value graph's strongly
    connected parts (a name that a loop adds to itself) are found once (Tarjan), so asking
    about every pointer of a kernel costs one pass over what they reach, not one per pointer.
    Unlike ``reaches`` it follows names to any depth: a fixed point has no depth to bound."""
    memo = kept_on(ctx, "reached_" + question)
    if id(expr) in memo:
        return memo[id(expr)][1]
    order: dict[int, int] = {}
    low: dict[int, int] = {}
    joined: dict[int, T] = {}
    members: list[ast.AST] = []
    on_members: set[int] = set()
    frames = []

    def enter(node: ast.AST) -> None:
        key = id(node)
        order[key] = low[key] = len(order)
        joined[key] = label(node)
        members.append(node)
        on_members.add(key)
        frames.append((node, iter(_successors(ctx, node, prune))))

    enter(expr)
    while frames:
        node, pending = frames[-1]
        key = id(node)
        for successor in pending:
            other = id(successor)
            if other in memo:
                joined[key] = joined[key] | memo[other][1]
            elif other not in order:
                enter(successor)
                break
            elif other in on_members:
                low[key] = min(low[key], order[other])
        else:
            frames.pop()
            if low[key] == order[key]:  # ``node`` roots a strongly connected part: it is complete
                part = []
                while True:
                    member = members.pop()
                    on_members.discard(id(member))
                    part.append(member)
                    if member is node:
                        break
                value = joined[key]
                for member in part:
                    value = value | joined[id(member)]
                for member in part:
                    memo[id(member)] = (member, value)
            if frames:
                parent = id(frames[-1][0])
                if id(node) in memo:
                    joined[parent] = joined[parent] | memo[id(node)][1]
                else:
                    low[parent] = min(low[parent], low[key])
    return memo[id(expr)][1]


def is_load(ctx: "FileContext", node: ast.AST) -> bool:
    return ctx.is_call(node, LOAD)


def depends_on_load(ctx: "FileContext", expr: ast.AST) -> bool:
    """True when ``expr`` is computed from a value read by ``tl.load``."""
    return reached_union(ctx, expr, "depends_on_load", lambda node: is_load(ctx, node))


def broadcast_operand(ctx: "FileContext", node: ast.AST) -> tuple[ast.expr, int] | None:
    """``(x, axis)`` for ``x[:, None]`` (axis 0, rows), ``x[None, :]`` (axis 1, columns) and
    ``tl.expand_dims(x, 1 | 0)``: the 1D vector spread along one axis of a 2D tile."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2:
        first, second = node.slice.elts
        if _is_full_slice(first) and _is_none(second):
            return node.value, ROWS
        if _is_none(first) and _is_full_slice(second):
            return node.value, COLS
    if ctx.is_call(node, EXPAND_DIMS) and len(node.args) == 2:
        axis = ctx.resolve_int(node.args[1])
        if axis in (0, 1):
            return node.args[0], COLS if axis == 0 else ROWS
    return None


def _is_full_slice(node: ast.AST) -> bool:
    return isinstance(node, ast.Slice) and node.lower is None and node.upper is None and node.step is None


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def broadcast_axes(ctx: "FileContext", expr: ast.AST) -> frozenset[int]:
    """Axes along which ``expr`` varies through 2D broadcasts of 1D offsets (loaded values are
    data, not offsets, and are not looked into)."""
    return reached_union(ctx, expr, "broadcast_axes", lambda node: _broadcast_axis(ctx, node),
                         prune=lambda node: is_load(ctx, node))


_NO_AXES: frozenset[int] = frozenset()


def _broadcast_axis(ctx: "FileContext", node: ast.AST) -> frozenset[int]:
    found = broadcast_operand(ctx, node)
    return _NO_AXES if found is None else frozenset((found[1],))


def from_arange(ctx: "FileContext", expr: ast.AST) -> bool:
    """True when ``expr`` is computed from a ``tl.arange`` (through names and loads alike)."""
    return reached_union(ctx, expr, "from_arange", lambda node: ctx.is_call(node, ARANGE))


def is_offset_vector(ctx: "FileContext", expr: ast.AST) -> bool:
    """True when ``expr`` varies per lane: it is built from ``tl.arange`` or a 2D broadcast."""
    return reached_union(ctx, expr, "offset_vector",
                         lambda node: ctx.is_call(node, ARANGE) or broadcast_operand(ctx, node) is not None)


def _single_value(ctx: "FileContext", expr: ast.AST) -> ast.expr | None:
    if isinstance(expr, ast.Name):
        values = bound_values(ctx, expr)
        if len(values) == 1 and len(ctx.definitions(expr.id, expr)) == 1:
            return values[0]
    return None


def additive_terms(ctx: "FileContext", expr: ast.expr, _seen: set[int] | None = None) -> list[ast.expr]:
    """The summands ``expr`` is built from, through names and loop-carried ``+=`` updates. A name
    with an opaque binding (a parameter, a loop variable) is itself a summand."""
    if _seen is None:
        return list(remembered(ctx, "additive_terms", expr, lambda: tuple(additive_terms(ctx, expr, set()))))
    seen = _seen
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        right = additive_terms(ctx, expr.right, seen) if isinstance(expr.op, ast.Add) else [expr.right]
        return additive_terms(ctx, expr.left, seen) + right
    if isinstance(expr, ast.Call) and ctx.call_name(expr) in _HINTS and expr.args:
        return additive_terms(ctx, expr.args[0], seen)
    if not isinstance(expr, ast.Name):
        return [expr]
    definitions = ctx.definitions(expr.id, expr)
    if not definitions:
        return [expr]
    terms: list[ast.expr] = []
    for definition in definitions:
        if id(definition.node) in seen:
            continue
        seen.add(id(definition.node))
        if definition.kind == "assign" and definition.value is not None:
            terms += additive_terms(ctx, definition.value, seen)
        elif definition.kind == "augassign" and isinstance(definition.node.op, (ast.Add, ast.Sub)):
            terms.append(definition.node.value)
        else:
            terms.append(expr)
    return terms


def factors(ctx: "FileContext", expr: ast.expr, depth: int = 0) -> list[ast.expr]:
    """The multiplicands of a product, through singly assigned names."""
    if depth > _MAX_DEPTH:
        return [expr]
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return factors(ctx, expr.left, depth + 1) + factors(ctx, expr.right, depth + 1)
    value = _single_value(ctx, expr)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        return factors(ctx, value, depth + 1)
    return [expr]


def stride_factors(ctx: "FileContext", term: ast.expr) -> Iterator[ast.expr]:
    """The scalars that scale the offset vector of one summand of a pointer: ``stride`` in
    ``offs[:, None] * stride`` and in ``(offs * stride)[:, None]``. A broadcast vector that is
    not a product (``(start + offs)[:, None]``, gathered indices) is an offset, never a stride."""
    for factor in factors(ctx, term):
        found = broadcast_operand(ctx, factor)
        if found is not None:
            inner = _single_value(ctx, found[0]) or found[0]
            if isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Mult):
                yield from stride_factors(ctx, inner)
        elif not is_offset_vector(ctx, factor):
            yield factor


def is_pointer_cast(ctx: "FileContext", node: ast.AST) -> bool:
    """``x.to(tl.pointer_type(...))`` or ``tl.cast(x, tl.pointer_type(...))``."""
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr == "to":
        target = argument(node, "dtype", 0)
    elif ctx.is_call(node, CAST) and len(node.args) >= 2:
        target = node.args[1]
    else:
        return False
    return ctx.is_call(target, POINTER_TYPE)


@dataclass
class TilePointer:
    """A 2D tile of pointers ``base + rows[:, None] * s0 + cols[None, :] * s1``, split into the
    summands that carry no lane offset (``bases``) and the scalars scaling offsets (``strides``)."""

    bases: list[ast.expr] = field(default_factory=list)
    strides: list[ast.expr] = field(default_factory=list)

    def strides_from_memory(self, ctx: "FileContext") -> list[ast.expr]:
        return [s for s in self.strides if depends_on_load(ctx, s)]

    def bases_from_memory(self, ctx: "FileContext") -> list[ast.expr]:
        """Base pointers read from a pointer table: a loaded integer cast to a pointer type."""
        if not ctx.calls_to(_POINTER_TYPE_CALLS):
            return []  # no ``tl.pointer_type(...)`` in the file: nothing is cast to a pointer
        return [
            b for b in self.bases
            if reaches(ctx, b, lambda n: is_pointer_cast(ctx, n) and depends_on_load(ctx, n)) is not None
        ]


def tile_pointer(ctx: "FileContext", pointer: ast.expr) -> TilePointer | None:
    """The parts of a raw pointer expression that addresses a 2D tile, or None when ``pointer``
    is not one (1D pointers, block pointers, anything whose lanes do not span two axes)."""
    if broadcast_axes(ctx, pointer) != {ROWS, COLS}:
        return None
    tile = TilePointer()
    for term in additive_terms(ctx, pointer):
        if is_offset_vector(ctx, term):
            tile.strides.extend(stride_factors(ctx, term))
        else:
            tile.bases.append(term)
    return tile


def load_of(ctx: "FileContext", expr: ast.expr) -> ast.Call | None:
    """The ``tl.load`` whose value ``expr`` is (through names and ``.to(...)`` casts), if one."""
    for _ in range(_MAX_DEPTH):
        if is_load(ctx, expr):
            return expr  # type: ignore[return-value]
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "to":
            expr = expr.func.value
            continue
        value = _single_value(ctx, expr)
        if value is None:
            return None
        expr = value
    return None


def is_dot(ctx: "FileContext", node: ast.AST) -> bool:
    return ctx.is_call(node, DOT)


def accumulates_dot(ctx: "FileContext", loop: ast.AST) -> bool:
    """True when ``loop`` carries a ``tl.dot`` accumulator: ``acc += tl.dot(a, b)``,
    ``acc = tl.dot(a, b, acc)`` or ``acc = acc + tl.dot(a, b)``."""
    for node in ast.walk(loop):
        if isinstance(node, ast.AugAssign) and any(is_dot(ctx, n) for n in ast.walk(node.value)):
            return True
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
            for call in ast.walk(node.value):
                if is_dot(ctx, call) and any(
                    isinstance(n, ast.Name) and n.id == target for n in ast.walk(node.value)
                ):
                    return True
    return False


def names_assigned_downstream(statement: ast.stmt, function: ast.AST, steps: int = 4) -> set[str]:
    """Variables ``statement`` assigns, and those assigned from them, up to ``steps`` assignments
    on, within ``function`` (what a value computed here is called later)."""
    found = assigned_names(statement)
    frontier = set(found)
    assignments = [s for s in ast.walk(function) if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign))]
    for _ in range(steps):
        step = set()
        for assignment in assignments:
            value = assignment.value
            if value is not None and any(isinstance(n, ast.Name) and n.id in frontier for n in ast.walk(value)):
                step |= assigned_names(assignment) - found
        if not step:
            break
        found |= step
        frontier = step
    return found


_REDUCTION_METHODS = frozenset(name.rsplit(".", 1)[1] for name in REDUCTIONS)


def is_reduction(ctx: "FileContext", node: ast.AST) -> bool:
    """``node`` reduces a tile along an axis: ``tl.sum(x, 0)``, ``tl.max(...)``, or the method
    form ``x.sum(axis=1)`` on a kernel value."""
    if not isinstance(node, ast.Call):
        return False
    name = ctx.call_name(node)
    if name is not None:
        return name in REDUCTIONS
    return isinstance(node.func, ast.Attribute) and node.func.attr in _REDUCTION_METHODS
