"""Host guards the sizes decide: whether a statement of a host function can run at all, given the
``if`` tests around it that compare host sizes (``project/shapes.py``).

``never_runs(view, ctx, node)`` is True only when some enclosing ``if`` of ``node`` (in its own
function) has a test that the host sizes decide against the branch ``node`` is in. Liger-Kernel
launches a multi-block kernel under ``else`` of ``if n_cols <= BLOCK_SIZE`` with
``BLOCK_SIZE = next_power_of_2(n_cols)``: that launch never runs. A test is decided only when both
sides are host sizes and their difference has a sign whatever the sizes are (``next_power_of_2(x)
>= x``, ``max(x, y) >= x``, ``x + 1 > x``); anything else is undecided, and the statement may run.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.index import symexpr as sx
from kernelint.model.index.symexpr import Poly
from kernelint.model.project import shapes

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.project.view import ProjectView

#: Enclosing ``if`` statements read for one node.
_MAX_GUARDS = 4


def never_runs(view: "ProjectView | None", ctx: "FileContext", node: ast.AST) -> bool:
    """Some enclosing ``if`` of ``node`` is decided against the branch it is in."""
    child, parent = node, ctx.parent(node)
    read = 0
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                                         ast.Module)):
        if isinstance(parent, ast.If) and child is not parent.test:
            read += 1
            if read > _MAX_GUARDS:
                return False
            needed = any(child is s for s in parent.body)
            if _decided(view, ctx, parent.test) is (not needed):
                return True
        child, parent = parent, ctx.parent(parent)
    return False


def _decided(view, ctx, test: ast.expr) -> bool | None:
    """True or False when the host sizes decide ``test`` for every input, else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _decided(view, ctx, test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [_decided(view, ctx, v) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in values else (True if all(v is True for v in values) else None)
        return True if True in values else (False if all(v is False for v in values) else None)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op = test.ops[0]
        if isinstance(op, (ast.Gt, ast.GtE)):
            left, right, op = test.comparators[0], test.left, (ast.Lt() if isinstance(op, ast.Gt) else ast.LtE())
        else:
            left, right = test.left, test.comparators[0]
        if not isinstance(op, (ast.Lt, ast.LtE)):
            return None
        a, b = shapes.size_of(view, ctx, left), shapes.size_of(view, ctx, right)
        if a is None or b is None:
            return None
        # a <= b always when b - a >= 0; never when a - b >= 1 (a < b: shifted by one)
        strict = isinstance(op, ast.Lt)
        if _nonnegative(b - a - (1 if strict else 0)):
            return True
        if _nonnegative(a - b - (0 if strict else 1)):
            return False
    return None


def _nonnegative(poly: Poly) -> bool:
    """``poly >= 0`` for all nonnegative host sizes, by lemmas on its positive terms:
    ``next_power_of_2(x) >= x``, ``max(x, ...) >= x``; what is left must have no negative term."""
    table = dict(poly.terms)
    for monomial, coefficient in poly.terms:
        if coefficient <= 0 or len(monomial) != 1:
            continue
        atom = sx.atom_of(monomial[0])
        if atom is None or atom.op not in ("np2", "max"):
            continue
        for candidate in atom.args:  # replace the atom by an operand it is at least
            lowered = sx.add(sx.from_table({m: c for m, c in table.items() if m != monomial}),
                             sx.scale(candidate, coefficient))
            if all(c >= 0 for _, c in lowered.terms):
                return True
    return all(c >= 0 for _, c in poly.terms)
