"""KL303 mbarrier-init-without-fence: `mbarrier_init` with neither a fence nor a CTA/cluster sync
after it: other threads race the init."""
from __future__ import annotations

import ast

from kernelint.checkers.cute.helpers import TMA_SKILL
from kernelint.findings import Severity
from kernelint.model.cute import is_mbarrier_init, is_mbarrier_operation, publishes_through_helpers
from kernelint.model.dsl import cute
from kernelint.rules import Report, Rule


class MbarrierInitWithoutFence(Rule):
    code = "KL303"
    name = "mbarrier-init-without-fence"
    family = "cute-pipeline"
    dsl = "cute"
    severity = Severity.ERROR
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

It also stays silent where the publishing step is out of this function's sight or is warp-wide:
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

## Example
```python
with cute.arch.elect_one():
    cute.arch.mbarrier_init(mbar, 1)
cute.arch.mbarrier_wait(mbar, 0)
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

    def check(self, node: ast.Call, ctx):
        if not is_mbarrier_init(ctx, node) or ctx.kernel_of(node) is None:
            return
        function = ctx.function_of(node)
        position = (node.lineno, node.col_offset)
        calls = [c for c in ast.walk(function) if isinstance(c, ast.Call) and c is not node]
        later = [c for c in calls if (c.lineno, c.col_offset) > position]
        if any(publishes_through_helpers(ctx, c) for c in later):
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

