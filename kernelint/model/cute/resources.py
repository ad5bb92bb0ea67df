"""CuTe DSL calls that claim a fixed hardware resource, and the amounts they ask for: tensor-memory
allocations (``cute.arch.alloc_tmem(n, ...)`` or ``TmemAllocator(...).allocate(n)``) and named
barriers (``cute.arch.barrier(barrier_id=..., number_of_threads=...)``,
``pipeline.NamedBarrier(barrier_id=..., num_threads=...)``). Amounts are folded with
``cute_static.cute_int`` so class configuration (``self.tmem_alloc_cols``) counts."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core.calls import argument, signature_argument
from kernelint.model.core.calls_graph import call_sites
from kernelint.model.dsl.cute import (
    ALLOC_TMEM,
    KERNEL,
    NAMED_BARRIERS,
    SIGNATURES,
    TMEM_ALLOCATE,
    TMEM_ALLOCATOR,
    TMEM_ALLOCATOR_ALLOCATES,
    TMEM_ALLOCATOR_FREES,
    TMEM_DEALLOCATE,
)

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


def _is_tmem_allocator(ctx: "FileContext", receiver: ast.expr) -> bool:
    """``receiver`` holds a ``TmemAllocator(...)`` (directly, or through one local binding)."""
    for value in ctx.values_of(receiver):
        if isinstance(value, ast.Call) and ctx.call_name(value) in TMEM_ALLOCATOR:
            return True
    return False


#: The calls ``tmem_columns`` can answer for (keys of ``FileContext.calls_to``).
TMEM_COLUMNS_CALLS = frozenset({ALLOC_TMEM, ".allocate"})


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


#: The calls ``tmem_allocation_handle`` can answer for.
TMEM_ALLOCATION_CALLS = frozenset({ALLOC_TMEM, *TMEM_ALLOCATE, *("." + m for m in TMEM_ALLOCATOR_ALLOCATES)})


def tmem_allocation_handle(ctx: "FileContext", call: ast.Call) -> ast.expr | None:
    """For a call that allocates tensor memory (``alloc_tmem(n, holder)``,
    ``prims.tcgen05_alloc(holder, n)``, ``<TmemAllocator>.allocate(n)`` / ``.reserve(n)``), the
    expression that stands for the allocation: the holder it writes the address to, or the
    allocator. None for any other call."""
    name = ctx.call_name(call)
    if name == ALLOC_TMEM:
        return signature_argument(call, SIGNATURES[ALLOC_TMEM], "smem_ptr_to_write_address") or call
    if name in TMEM_ALLOCATE:
        return argument(call, "addr", 0) or call
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in TMEM_ALLOCATOR_ALLOCATES and _is_tmem_allocator(ctx, func.value):
        return func.value
    return None


def frees_tmem(ctx: "FileContext", call: ast.Call) -> bool:
    """``dealloc_tmem(...)``, ``prims.tcgen05_dealloc(...)`` or an allocator's ``.free(ptr)``
    (any receiver: an allocator handed to a helper is a parameter there)."""
    if ctx.call_name(call) in TMEM_DEALLOCATE:
        return True
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr in TMEM_ALLOCATOR_FREES


def kernel_entries_reaching(ctx: "FileContext", function: ast.AST, depth: int = 3) -> list[ast.AST]:
    """The ``@cute.kernel`` functions of this file that are ``function`` or call it through
    helpers of the file, up to ``depth`` calls up."""
    found, frontier, seen = [], [function], {id(function)}
    for _ in range(depth + 1):
        following = []
        for candidate in frontier:
            if any(k.node is candidate and KERNEL in k.decorators for k in ctx.kernels):
                found.append(candidate)
                continue
            for site in call_sites(ctx, candidate):
                caller = ctx.function_of(site)
                if caller is not None and id(caller) not in seen:
                    seen.add(id(caller))
                    following.append(caller)
        frontier = following
    return found


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
