"""CuTe DSL facts about the mbarrier protocol: which calls initialise a barrier, publish it to
the other threads, and wait on its phase.

Calls are classified by qualified name (``kernelint.model.dsl.cute``), so
``cute.arch.mbarrier_wait``, a ``from cutlass.cute.arch import mbarrier_wait`` and the
experimental ``prims.mbarrier_wait_parity`` are one thing to the rules.
"""
from __future__ import annotations

import ast
from kernelint.model.core.walk import subtree
from typing import TYPE_CHECKING

from kernelint.model.dsl.cute import (
    BULK_COPY_PREFIX,
    COPY,
    CTA_OR_CLUSTER_SYNCS,
    MBARRIER_INIT,
    MBARRIER_WAITS,
    PHASE_KEYWORDS,
    PUBLISHING_HELPERS,
    TMA_BARRIER_KEYWORD,
    TRANSACTION_COUNT_MARK,
    WARP_SYNCS,
)

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


def is_cta_or_cluster_sync(ctx: "FileContext", call: ast.Call) -> bool:
    return ctx.call_name(call) in CTA_OR_CLUSTER_SYNCS


def is_mbarrier_init(ctx: "FileContext", call: ast.Call) -> bool:
    return ctx.call_name(call) in MBARRIER_INIT


def publishes_mbarrier_init(ctx: "FileContext", call: ast.Call) -> bool:
    """A call that publishes a freshly initialised barrier to the other threads: a CTA, cluster
    or warp barrier, or a call that fences the init (``fences_mbarrier_init``).

    A fence is not enough by itself (measured: init + fence with no sync faulted), but real code
    that fences puts the sync in another function (a cluster wait in the caller, a ``sync_warp``
    for a one-warp barrier), so a fence is taken as the sign of a handled init."""
    if is_cta_or_cluster_sync(ctx, call) or ctx.call_name(call) in WARP_SYNCS:
        return True
    return fences_mbarrier_init(ctx, call)


def fences_mbarrier_init(ctx: "FileContext", call: ast.Call) -> bool:
    """A call that orders the barrier inits before it ahead of later uses by other threads and by
    the async proxy (TMA): the init fence, a pipeline init helper (``pipeline_init_arrive``
    fences), or the creation of a ``cutlass.pipeline`` object, which fences and syncs unless
    ``defer_sync=True``. A CTA sync alone is not one."""
    name = ctx.call_name(call)
    if name is None and isinstance(call.func, ast.Attribute):
        name = call.func.attr  # self.pipeline_init_arrive(...) style wrappers
    if name is None:
        return False
    parts = name.split(".")
    if parts[-1] in PUBLISHING_HELPERS:
        return True
    deferred = any(
        k.arg == "defer_sync" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
        for k in call.keywords
    )
    return len(parts) >= 2 and parts[-1] == "create" and parts[-2].startswith("Pipeline") and not deferred


def publishes_through_helpers(ctx: "FileContext", call: ast.Call, depth: int = 2) -> bool:
    """``call`` publishes a barrier init itself, or a helper of this file that it calls does
    (``self.init_barriers()`` whose body fences and syncs), up to ``depth`` calls deep."""
    return ctx.call_or_its_helpers(call, lambda c: publishes_mbarrier_init(ctx, c), depth)


def fences_through_helpers(ctx: "FileContext", call: ast.Call, depth: int = 2) -> bool:
    """``call`` fences barrier inits itself, or a helper of this file that it calls does."""
    return ctx.call_or_its_helpers(call, lambda c: fences_mbarrier_init(ctx, c), depth)


def _barrier_root(expr: ast.expr) -> ast.expr:
    """The array a barrier expression points into: ``bars + stage`` and ``bars[i]`` -> ``bars``."""
    while True:
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            expr = expr.left if not isinstance(expr.left, ast.Constant) else expr.right
        elif isinstance(expr, ast.Subscript):
            expr = expr.value
        else:
            return expr


def barrier_keys(ctx: "FileContext", expr: ast.expr, depth: int = 3) -> set[str]:
    """Spellings of the barrier array ``expr`` points into, through local name bindings
    (``full = storage.full.data_ptr()``; ``bar = full + stage``), to compare two barrier uses.
    A name bound to a call with arguments (``smem.allocate_array(Int64, 1)``) is its own
    array: two such allocations spelled alike are two barriers."""
    root = _barrier_root(expr)
    keys = {ast.unparse(root)}
    if isinstance(root, ast.Name) and depth > 0:
        for value in ctx.values_of(root):
            if value is None or value is root or (isinstance(value, ast.Call) and (value.args or value.keywords)):
                continue
            keys |= barrier_keys(ctx, value, depth - 1)
    return keys


def async_proxy_barriers(ctx: "FileContext", call: ast.Call) -> list[ast.expr]:
    """The barriers ``call`` has the async proxy complete: the barrier of a transaction count
    (``mbarrier_arrive_and_expect_tx(bar, nbytes)``), every argument of a bulk copy
    (``cp_async_bulk_tensor_shared_cta_global(dst, desc, coords, bar)``), and the
    ``tma_bar_ptr=`` of a ``cute.copy``. Empty for any other call."""
    name = ctx.call_name(call) or ""
    if not name and isinstance(call.func, ast.Attribute):
        name = call.func.attr
    last = name.rsplit(".", 1)[-1]
    if TRANSACTION_COUNT_MARK in last:
        first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("mbar_ptr", "addr")), None)
        return [first] if first is not None else []
    if last.startswith(BULK_COPY_PREFIX):
        return [*call.args, *(k.value for k in call.keywords if k.arg is not None)]
    if name == COPY:
        return [k.value for k in call.keywords if k.arg == TMA_BARRIER_KEYWORD]
    return []


def completed_by_async_proxy(ctx: "FileContext", function: ast.AST, barrier: ast.expr) -> bool:
    """Some call in ``function`` has the async proxy (TMA, a bulk copy's transaction count)
    complete the barrier array ``barrier`` points into."""
    keys = barrier_keys(ctx, barrier)
    return any(
        keys & barrier_keys(ctx, used)
        for call in subtree(function) if isinstance(call, ast.Call)
        for used in async_proxy_barriers(ctx, call)
    )


def is_mbarrier_operation(ctx: "FileContext", call: ast.Call) -> bool:
    """A call that arrives on, waits on or sets a transaction count of an mbarrier."""
    name = ctx.call_name(call) or ""
    last = name.rsplit(".", 1)[-1]
    return last.startswith("mbarrier_") and not is_mbarrier_init(ctx, call)


def wait_operands(ctx: "FileContext", call: ast.Call) -> tuple[ast.expr, ast.expr] | None:
    """``(barrier, phase)`` of a phase-parity mbarrier wait, or None for any other call."""
    positions = MBARRIER_WAITS.get(ctx.call_name(call) or "")
    if positions is None:
        return None
    barrier_at, phase_at = positions
    if len(call.args) <= barrier_at:
        return None
    phase = call.args[phase_at] if len(call.args) > phase_at else next(
        (k.value for k in call.keywords if k.arg in PHASE_KEYWORDS), None
    )
    return (call.args[barrier_at], phase) if phase is not None else None
