"""TMA stores in CuTe DSL kernels: which ``cute.copy`` calls store shared memory to global
memory through a TMA atom, and whether the kernel waits for them to read their source.

The atom of a TMA store is usually built on the host side
(``atom, tensor = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileS2GOp(), ...)``) and
passed to the kernel at its launch; the model follows a kernel parameter back to the argument
of the file's launches and from there to the factory call.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.dsl.cute import BULK_STORE_DRAINS, COPY, MAKE_TMA_ATOM, TMA_STORE_OPS
from kernelint.model.core.calls import callee_name
from kernelint.model.core.walk import subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_MAX_DEPTH = 4


def _makes_store_atom(ctx: "FileContext", call: ast.AST) -> bool:
    if not isinstance(call, ast.Call) or ctx.call_name(call) not in MAKE_TMA_ATOM or not call.args:
        return False
    op = call.args[0]
    name = ctx.call_name(op) if isinstance(op, ast.Call) else None
    return name is not None and name.rsplit(".", 1)[-1] in TMA_STORE_OPS


def is_tma_store_atom(ctx: "FileContext", expr: ast.expr, depth: int = _MAX_DEPTH) -> bool:
    """``expr`` is shown to hold a TMA store atom: bound (directly or by tuple unpacking) from
    ``make_tiled_tma_atom(<S2G op>, ...)``, or a kernel parameter that every launch of the
    kernel in this file binds to one."""
    if depth <= 0 or not isinstance(expr, ast.Name):
        return False
    for definition in ctx.definitions(expr.id, expr):
        statement = definition.node
        if isinstance(statement, ast.Assign) and _makes_store_atom(ctx, statement.value):
            return True
        if definition.kind == "param":
            kernel = ctx.kernel_of(expr, "cute")
            launches = [l for l in ctx.launches_of("cute") if kernel is not None and l.kernel is kernel]
            bound = [l.bound_arguments().get(expr.id) for l in launches]
            if bound and all(b is not None and is_tma_store_atom(ctx, b, depth - 1) for b in bound):
                return True
    return False


def tma_stores(ctx: "FileContext", function: ast.AST) -> list[ast.Call]:
    """``cute.copy(atom, ...)`` calls in ``function`` whose atom is a TMA store atom."""
    return [
        node for node in subtree(function)
        if isinstance(node, ast.Call) and ctx.call_name(node) == COPY and node.args
        and is_tma_store_atom(ctx, node.args[0])
    ]


def drains_bulk_stores(ctx: "FileContext", call: ast.Call, depth: int = 2) -> bool:
    """``call`` waits for outstanding bulk stores (``cp_async_bulk_wait_group``, a store
    pipeline's ``producer_tail``), itself or in a helper of this file it calls."""
    def drains(c: ast.Call) -> bool:
        return callee_name(c.func) in BULK_STORE_DRAINS

    return ctx.call_or_its_helpers(call, drains, depth)
