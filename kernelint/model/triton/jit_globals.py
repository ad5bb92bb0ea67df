"""Module globals that Triton ``@jit`` code reads, and whether Triton lets it read them.

Triton's code generator lets a ``@jit`` function read a module global only when it is a module, a
jit function, a ``triton.language`` object or dtype, a named tuple, or an instance of
``tl.constexpr`` (``X = tl.constexpr(4)``); reads in a parameter's default value are always
allowed (``compiler/code_generator.py``, ``global_lookup``, 3.0.0 to 3.9.0). Until 3.2 an
annotation ``X: tl.constexpr = 4`` counted too (``_is_constexpr_global`` read the module's
``__annotations__``); from 3.3.0 it does not.

This module answers only where the file shows the global's value: every module-level binding of
the name is an assignment of a plain literal (a number, a string, a bool, ``None``, arithmetic or
tuples of them). Anything else (a call, an attribute, an import, a function) may be one of the
allowed kinds and is left alone.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from kernelint.model.dsl import triton

PLAIN = "plain"  # ``X = 4``: rejected from Triton 3.0.0
ANNOTATED = "annotated"  # ``X: tl.constexpr = 4``: rejected from Triton 3.3.0
#: The escape hatch Triton's error message names; a file that mentions it sets it somewhere.
ESCAPE_ENV = "TRITON_ALLOW_NON_CONSTEXPR_GLOBALS"


@dataclass
class GlobalRead:
    """A module global read by jit code: its name, how it is bound, its binding statement, the
    reads (first one first) and the jit functions that read it."""

    name: str
    form: str
    binding: ast.Assign | ast.AnnAssign
    reads: list[ast.Name] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)


def _plain_literal(node: ast.AST | None) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, str, bool)) or node.value is None
    if isinstance(node, ast.UnaryOp):
        return _plain_literal(node.operand)
    if isinstance(node, ast.BinOp):
        return _plain_literal(node.left) and _plain_literal(node.right)
    if isinstance(node, ast.Tuple):
        return all(_plain_literal(e) for e in node.elts)
    return False


def _form(ctx, binding: ast.AST) -> str | None:
    """How a module-level binding makes its name visible to jit code (None: allowed or unknown)."""
    if isinstance(binding, ast.Assign) and _plain_literal(binding.value):
        return PLAIN
    if isinstance(binding, ast.AnnAssign) and _plain_literal(binding.value):
        return ANNOTATED if ctx.qualname(binding.annotation) == triton.CONSTEXPR else PLAIN
    return None


def _body_names(function: ast.FunctionDef):
    """Names read in the function's body (not its decorators, defaults or annotations)."""
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                yield node


def rejected_global_reads(ctx) -> list[GlobalRead]:
    """The module globals Triton jit code of this file reads whose every binding is a plain literal,
    plain or annotated, in the order of their first read; empty when the file mentions the escape
    environment variable."""
    if ESCAPE_ENV in ctx.source:
        return []
    found: dict[str, GlobalRead] = {}
    for kernel in ctx.kernels_of("triton"):
        for name in _body_names(kernel.node):
            definitions = ctx.definitions(name.id, name)
            if not definitions or any(ctx.scope_of(d.node) is not ctx.tree for d in definitions):
                continue
            forms = {_form(ctx, d.node) for d in definitions}
            if None in forms or any(d.kind != "assign" for d in definitions):
                continue
            form = PLAIN if PLAIN in forms else ANNOTATED
            read = found.get(name.id)
            if read is None:
                read = found[name.id] = GlobalRead(name.id, form, definitions[0].node)
            read.reads.append(name)
            if kernel.name not in read.functions:
                read.functions.append(kernel.name)
    return sorted(found.values(), key=lambda r: (r.reads[0].lineno, r.reads[0].col_offset))
