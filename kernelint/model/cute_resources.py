"""CuTe DSL calls that claim a fixed hardware resource, and the amounts they ask for: tensor-memory
allocations (``cute.arch.alloc_tmem(n, ...)`` or ``TmemAllocator(...).allocate(n)``) and named
barriers (``cute.arch.barrier(barrier_id=..., number_of_threads=...)``,
``pipeline.NamedBarrier(barrier_id=..., num_threads=...)``). Amounts are folded with
``cute_static.cute_int`` so class configuration (``self.tmem_alloc_cols``) counts."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.calls import argument, signature_argument
from kernelint.model.dsl.cute import ALLOC_TMEM, NAMED_BARRIERS, SIGNATURES, TMEM_ALLOCATOR

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


def _is_tmem_allocator(ctx: "FileContext", receiver: ast.expr) -> bool:
    """``receiver`` holds a ``TmemAllocator(...)`` (directly, or through one local binding)."""
    for value in ctx.values_of(receiver):
        if isinstance(value, ast.Call) and ctx.call_name(value) in TMEM_ALLOCATOR:
            return True
    return False


def tmem_columns(ctx: "FileContext", call: ast.Call) -> ast.expr | None:
    """The column-count argument of a tensor-memory allocation, or None for any other call.
    An ``arch=`` other than the default makes the limits another architecture's: None too."""
    if ctx.call_name(call) == ALLOC_TMEM:
        if argument(call, "arch") is not None:
            return None
        return signature_argument(call, SIGNATURES[ALLOC_TMEM], "num_columns")
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "allocate" and _is_tmem_allocator(ctx, func.value):
        return argument(call, "num_columns", 0)
    return None


@dataclass(frozen=True)
class NamedBarrierUse:
    call: ast.Call
    barrier_id: ast.expr | None
    thread_count: ast.expr | None


def named_barrier(ctx: "FileContext", call: ast.Call) -> NamedBarrierUse | None:
    """The id and thread count a named-barrier call or ``NamedBarrier(...)`` names; None for
    any other call. (``cute.arch.barrier()`` with neither is ``sync_threads``.)"""
    qualname = ctx.call_name(call) or ""
    names = NAMED_BARRIERS.get(qualname)
    if names is None:
        return None
    id_name, count_name = names
    signature = SIGNATURES.get(qualname)
    if signature is not None:  # NamedBarrier(...) also takes them positionally
        return NamedBarrierUse(call, signature_argument(call, signature, id_name),
                               signature_argument(call, signature, count_name))
    return NamedBarrierUse(call, argument(call, id_name), argument(call, count_name))
