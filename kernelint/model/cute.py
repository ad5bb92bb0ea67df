"""CuTe DSL facts about the mbarrier protocol: which calls initialise a barrier, publish it to
the other threads, and wait on its phase.

Calls are classified by qualified name (``kernelint.model.dsl.cute``), so
``cute.arch.mbarrier_wait``, a ``from cutlass.cute.arch import mbarrier_wait`` and the
experimental ``prims.mbarrier_wait_parity`` are one thing to the rules.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.dsl.cute import (
    CTA_OR_CLUSTER_SYNCS,
    MBARRIER_INIT,
    MBARRIER_WAITS,
    PHASE_KEYWORDS,
    PUBLISHING_HELPERS,
    WARP_SYNCS,
)

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


def is_cta_or_cluster_sync(ctx: "FileContext", call: ast.Call) -> bool:
    return ctx.call_name(call) in CTA_OR_CLUSTER_SYNCS


def is_mbarrier_init(ctx: "FileContext", call: ast.Call) -> bool:
    return ctx.call_name(call) in MBARRIER_INIT


def publishes_mbarrier_init(ctx: "FileContext", call: ast.Call) -> bool:
    """A call that publishes a freshly initialised barrier to the other threads: a CTA or
    cluster barrier, the init fence or a pipeline init helper, or the creation of a
    ``cutlass.pipeline`` object (which fences and syncs unless ``defer_sync=True``).

    A fence is not enough by itself (measured: init + fence with no sync faulted), but real code
    that fences puts the sync in another function (a cluster wait in the caller, a ``sync_warp``
    for a one-warp barrier), so a fence is taken as the sign of a handled init."""
    if is_cta_or_cluster_sync(ctx, call) or ctx.call_name(call) in WARP_SYNCS:
        return True
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
