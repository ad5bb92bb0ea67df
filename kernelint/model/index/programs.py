"""How a Triton kernel maps its programs to work.

Answers: which kernel values are computed from ``tl.program_id`` (a program's tile index),
which products scale a program index by some size (``pid * BLOCK``: one tile per program, so
the grid must count tiles of exactly that size), whether the kernel is persistent (it loops
over tiles by the number of programs, so any grid size is correct), and which values are 0 in
the first program (``pid // n``, ``first_pid_m + pid % group``).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core.dataflow import reached_union
from kernelint.model.dsl import triton
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.core.walk import subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_RANGES = frozenset({triton.RANGE, triton.STATIC_RANGE})


def is_program_id(ctx: "FileContext", node: ast.AST) -> bool:
    return ctx.is_call(node, triton.PROGRAM_ID)


def from_program_id(ctx: "FileContext", expr: ast.AST) -> bool:
    """``expr`` is computed from ``tl.program_id`` through arithmetic and assignments (loop
    variables are opaque: a tile index stepped by a loop is not a program index)."""
    return reached_union(ctx, expr, "from_program_id", lambda node: is_program_id(ctx, node))


def program_scalings(ctx: "FileContext", kernel: "Kernel") -> list[tuple[ast.BinOp, ast.Name]]:
    """Products ``p * SIZE`` in ``kernel`` where ``p`` is a program index and ``SIZE`` a name:
    each program handles the tile at ``p * SIZE``."""
    found = []
    for node in subtree(kernel.node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for index, size in ((node.left, node.right), (node.right, node.left)):
                if isinstance(size, ast.Name) and not from_program_id(ctx, size) and from_program_id(ctx, index):
                    found.append((node, size))
    return found


def is_persistent(ctx: "FileContext", kernel: "Kernel") -> bool:
    """The kernel reads the number of programs (``tl.num_programs``) or loops over tiles starting
    at its program index (``for tile in range(pid, n_tiles, NUM_SMS)``): each program takes
    several tiles, so the grid size is a choice, not a count of tiles."""
    for node in subtree(kernel.node):
        if ctx.is_call(node, triton.NUM_PROGRAMS):
            return True
        if isinstance(node, (ast.For, ast.While)):
            header = node.iter if isinstance(node, ast.For) else node.test
            if isinstance(node, ast.For) and not (
                isinstance(header, ast.Call)
                and (ctx.call_name(header) in _RANGES or (isinstance(header.func, ast.Name) and header.func.id == "range"))
            ):
                continue
            if from_program_id(ctx, header):
                return True
    return False


_ZERO_AT_ZERO_LEFT = (ast.FloorDiv, ast.Mod, ast.RShift, ast.LShift, ast.Div)


def zero_for_first_program(ctx: "FileContext", expr: ast.AST, depth: int = 8) -> bool:
    """``expr`` is 0 in the program whose ids are all 0 (the first tile), whatever the other
    values: a ``tl.program_id``, a product or bitwise and with such a value, a quotient, remainder
    or shift of one, a sum of two, a cast of one, and a name whose every reaching binding is one
    (a loop variable counts when its ``range`` starts at one: its first iteration)."""
    if depth <= 0:
        return False
    if isinstance(expr, ast.Constant):
        return expr.value == 0 and not isinstance(expr.value, bool)
    if is_program_id(ctx, expr):
        return True
    if isinstance(expr, ast.BinOp):
        left, right = (zero_for_first_program(ctx, side, depth - 1) for side in (expr.left, expr.right))
        if isinstance(expr.op, (ast.Mult, ast.BitAnd)):
            return left or right
        if isinstance(expr.op, _ZERO_AT_ZERO_LEFT):
            return left
        if isinstance(expr.op, (ast.Add, ast.Sub, ast.BitOr, ast.BitXor)):
            return left and right
        return False
    if isinstance(expr, ast.Call):
        if ctx.call_name(expr) in (triton.CAST, *triton.VALUE_HINTS) and expr.args:
            return zero_for_first_program(ctx, expr.args[0], depth - 1)
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr == "to" and ctx.call_name(expr) is None:
            return zero_for_first_program(ctx, func.value, depth - 1)
        return False
    if isinstance(expr, ast.Name):
        definitions = reaching_definitions(ctx, expr)
        return bool(definitions) and all(_binds_zero(ctx, d, depth - 1) for d in definitions)
    return False


def _binds_zero(ctx: "FileContext", definition, depth: int) -> bool:
    node = definition.node
    if definition.kind == "assign" and definition.value is not None:
        return zero_for_first_program(ctx, definition.value, depth)
    if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Call):
        header = node.iter
        is_range = ctx.call_name(header) in _RANGES or (isinstance(header.func, ast.Name) and header.func.id == "range")
        return is_range and len(header.args) >= 2 and zero_for_first_program(ctx, header.args[0], depth)
    return False
