"""KL303 mbarrier-init-without-fence: `mbarrier_init` with neither a fence nor a CTA/cluster sync
after it: other threads race the init."""
from __future__ import annotations

import ast

from kernelint.checkers.cute.helpers import TMA_SKILL
from kernelint.findings import Severity
from kernelint.model.cute import is_mbarrier_init, publishes_through_helpers
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
        yield Report(
            node,
            "mbarrier initialised with neither a fence nor a CTA/cluster sync after it; other "
            "threads may arrive before it is initialised: add `mbarrier_init_fence()` and "
            "`sync_threads()`",
        )

