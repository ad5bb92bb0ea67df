"""KL303 mbarrier-init-without-fence: `mbarrier_init` with neither a fence nor a CTA/cluster sync
after it: other threads race the init."""
from __future__ import annotations

import ast

from kernelint.checkers.cute.helpers import TMA_SKILL
from kernelint.findings import Severity
from kernelint.model.cute.mbarriers import (
    completed_by_async_proxy,
    fences_through_helpers,
    is_mbarrier_init,
    is_mbarrier_operation,
    publishes_through_helpers,
)
from kernelint.model.dsl import cute
from kernelint.model.dsl.cute import MBARRIER_INIT
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree


class MbarrierInitWithoutFence(Rule):
    code = "KL303"
    name = "mbarrier-init-without-fence"
    family = "cute-pipeline"
    dsl = "cute"
    severity = Severity.ERROR
    other_severities = (Severity.INFO,)
    evidence_class = "crash"
    summary = "`mbarrier_init` with neither a fence nor a CTA/cluster sync after it: other threads race the init."
    doc = """
## What it does
Reports `cute.arch.mbarrier_init(...)` (or the experimental `mbarrier_init`) in a kernel when
nothing after it in the same kernel publishes the barrier to the threads that will use it:
no CTA or cluster barrier (`sync_threads()`, `barrier()`, `cluster_wait()`,
`barrier_cta_sync()`, `barrier_cluster_wait()`), no `mbarrier_init_fence()` /
`fence_mbarrier_init()`, no pipeline init helper (`pipeline_init_arrive` / `pipeline_init_wait`),
and no creation of a `cutlass.pipeline` object without `defer_sync=True`, directly or through a
helper defined in the same file.

Scope, from the evidence. The pair's bad kernel (neither fence nor sync after the init) died
with `unspecified launch failure` on the H200 in every run. Two more variants ran 5 times each
(`reference_kernels/evidence/runs/`, sources in `KL303-variants/`): fence but no sync died
every time the same way; sync but no fence was correct every time. So the sync is what this kernel needs. The rule still counts a fence as handling the init:
in real code that fences, the sync sits in another function (a cluster wait in the caller, a
`sync_warp` for a barrier one warp uses, a sync after the init helper returns), and reporting
those was wrong in all 3 such places of the corpus (quack, CUTLASS).
It reports the init that nothing follows, the case the pair measured.

Info-level case (the catalog's quieter case). An init that is published with a CTA, cluster
or warp sync but not followed by `mbarrier_init_fence()` (nor a pipeline init helper or a
`cutlass.pipeline` object created without `defer_sync=True`, which fence), on a barrier the
async proxy completes: a transaction count is set on it (`mbarrier_arrive_and_expect_tx`,
`mbarrier_expect_tx`), a bulk copy names it (`cp_async_bulk*`), or a `cute.copy` takes it as
`tma_bar_ptr=`, in the same function (`bars + stage` and `bars` are the same barrier array; two
allocations are two). This finding is reported at info, whatever the rule's severity: it has
not been shown failing. On the H200, sync without fence ran correctly 5 of 5 times on a barrier
that threads arrive on, and 18 of 18 times on a TMA transaction barrier (a TMA load and store
through a standalone barrier published by a CTA sync, 6 sizes of 1 to 8192 CTAs, 3 runs;
`benchmarks/kl303_tma_variant`, records in `reference_kernels/evidence/runs/KL303-variants/`). Barriers
only threads arrive on, with a sync, are not reported. A fence written before the init (in
the same elected block) does not order it and does not count.

At error it also stays silent where the publishing step is out of this function's sight or is
warp-wide (the info case above still applies to a warp-synced TMA barrier):
a `sync_warp()` after a barrier that one lane initialises for its own warp, and an init in a
helper (a `@cute.jit` function or method, not the `@cute.kernel` entry) that uses no barrier
after the init except through the initialising thread itself (`mbarrier_init` followed by that
thread's `mbarrier_arrive_and_expect_tx`): such helpers set barriers up and return, and the
kernel that calls them fences and syncs. All 8 reports of the earlier rule on flashinfer's CuTe
DSL kernels (commit in docs/precision.md) were of these two forms.

## Why is this bad?
One thread initialises the barrier in shared memory. Other threads, other CTAs of the cluster
and the TMA unit (which signals completion through the async proxy) must see that
initialisation before they arrive on or wait for the barrier. `mbarrier_init_fence()` orders the
initialisation before those accesses, and a CTA (or cluster) barrier after it keeps everyone
from using the barrier too early. Without them an arrival can reach the barrier before it is
initialised: the kernel may fault (`unspecified launch failure`), lose the arrival and hang, or
work by luck; which one depends on timing, so the bug can hide on one GPU and show on another.

The info case keeps the sync but drops the fence. The PTX memory model asks for
`fence.mbarrier_init` (what `mbarrier_init_fence()` emits) before the async proxy, which
performs a TMA copy's `complete_tx` on the barrier, uses a barrier the generic proxy initialised;
a CTA sync orders the init for the other threads, not for the async proxy. CUTLASS's pipelines
always emit the fence, and real projects have added it after the fact (MoonshotAI/FlashKDA
PR #25: "add fence_barrier_init() after mbarrier.init for the standalone transaction
barriers, matching CUTLASS PipelineTmaAsync"). It has not been shown failing on the H200.

## Example
```python
with cute.arch.elect_one():
    cute.arch.mbarrier_init(mbar, 1)
cute.arch.mbarrier_wait(mbar, 0)
```

The info case: a standalone TMA barrier, synced but not fenced.
```python
with cute.arch.elect_one():
    cute.arch.mbarrier_init(mbar, 1)
cute.arch.sync_threads()
with cute.arch.elect_one():
    cute.arch.mbarrier_arrive_and_expect_tx(mbar, nbytes)
    cute.copy(tma_atom, gA, sA, tma_bar_ptr=mbar)
```

## Use instead
```python
with cute.arch.elect_one():
    cute.arch.mbarrier_init(mbar, 1)
cute.arch.mbarrier_init_fence()
cute.arch.sync_threads()
cute.arch.mbarrier_wait(mbar, 0)
```
"""
    references = f"{TMA_SKILL} (`mbarrier_init` once, then `mbarrier_init_fence` and a sync); 'Cluster features (SM90+)'."
    node_types = (ast.Call,)
    calls = MBARRIER_INIT

    def check(self, node: ast.Call, ctx):
        if not is_mbarrier_init(ctx, node) or ctx.kernel_of(node) is None:
            return
        function = ctx.function_of(node)
        position = (node.lineno, node.col_offset)
        calls = [c for c in subtree(function) if isinstance(c, ast.Call) and c is not node]
        later = [c for c in calls if (c.lineno, c.col_offset) > position]
        if any(publishes_through_helpers(ctx, c) for c in later):
            if not any(fences_through_helpers(ctx, c) for c in later) and node.args and \
                    completed_by_async_proxy(ctx, function, node.args[0]):
                yield Report(
                    node,
                    "mbarrier that a TMA (bulk async) copy completes is initialised and synced but "
                    "never fenced; the PTX memory model asks for `mbarrier_init_fence()` before the "
                    "async proxy uses it (not shown failing on the H200): add it after the init",
                    severity=Severity.INFO,
                )
            return
        guard = next((a for a in ctx.ancestors(node) if isinstance(a, ast.If)), None)
        own = {id(c) for c in ast.walk(guard)} if guard is not None and ctx.function_of(guard) is function else set()
        if cute.KERNEL not in ctx.kernel_of(node).decorators and not any(
            is_mbarrier_operation(ctx, c) for c in later if id(c) not in own
        ):
            # An init helper that sets barriers up (the initialising thread may arm them itself)
            # and returns: publishing them to the other threads is its caller's step.
            return
        yield Report(
            node,
            "mbarrier initialised with neither a fence nor a CTA/cluster sync after it; other "
            "threads may arrive before it is initialised: add `mbarrier_init_fence()` and "
            "`sync_threads()`",
        )

