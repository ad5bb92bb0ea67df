"""How a Triton kernel maps its programs to work.

Answers: which kernel values are computed from ``tl.program_id`` (a program's tile index),
which products scale a program index by some size (``pid * BLOCK``: one tile per program, so
the grid must count tiles of exactly that size), and whether the kernel is persistent (it loops
over tiles by the number of programs, so any grid size is correct).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.dataflow import reaches
from kernelint.model.dsl import triton

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_RANGES = frozenset({triton.RANGE, triton.STATIC_RANGE})


def is_program_id(ctx: "FileContext", node: ast.AST) -> bool:
    return ctx.is_call(node, triton.PROGRAM_ID)


def from_program_id(ctx: "FileContext", expr: ast.AST) -> bool:
    """``expr`` is computed from ``tl.program_id`` through arithmetic and assignments (loop
    variables are opaque: a tile index stepped by a loop is not a program index)."""
    return reaches(ctx, expr, lambda node: is_program_id(ctx, node)) is not None


def program_scalings(ctx: "FileContext", kernel: "Kernel") -> list[tuple[ast.BinOp, ast.Name]]:
    """Products ``p * SIZE`` in ``kernel`` where ``p`` is a program index and ``SIZE`` a name:
    each program handles the tile at ``p * SIZE``."""
    found = []
    for node in ast.walk(kernel.node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for index, size in ((node.left, node.right), (node.right, node.left)):
                if isinstance(size, ast.Name) and not from_program_id(ctx, size) and from_program_id(ctx, index):
                    found.append((node, size))
    return found


def is_persistent(ctx: "FileContext", kernel: "Kernel") -> bool:
    """The kernel reads the number of programs (``tl.num_programs``) or loops over tiles starting
    at its program index (``for tile in range(pid, n_tiles, NUM_SMS)``): each program takes
    several tiles, so the grid size is a choice, not a count of tiles."""
    for node in ast.walk(kernel.node):
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
