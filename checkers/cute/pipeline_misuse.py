"""KL313 pipeline-misuse: `cutlass.pipeline` set up so that its barriers never complete, or
used from the wrong side."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.core.calls import argument
from kernelint.model.cute.mbarriers import publishes_through_helpers
from kernelint.model.cute.pipeline import PIPELINE_CREATES, created_pipeline, state_side, thread_group_size
from kernelint.model.dsl.cute import CONSUMER_METHODS, KERNEL, PRODUCER_METHODS, TMA_LOAD_PIPELINES, WARP_SIZE
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree


def _is_true(expr: ast.expr | None) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is True


class PipelineMisuse(Rule):
    code = "KL313"
    name = "pipeline-misuse"
    family = "cute-pipeline"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "hang"
    summary = "A `cutlass.pipeline` whose barriers cannot complete: a TMA producer group larger than one thread, a deferred init never published, or a state used from the wrong side."
    node_types = (ast.Call,)
    calls = PIPELINE_CREATES | {"." + method for method in PRODUCER_METHODS | CONSUMER_METHODS}
    doc = """
## What it does
Reports three ways of setting up or driving a `cutlass.pipeline` that leave its barriers
waiting:
- a TMA load pipeline (`PipelineTmaAsync`, `PipelineTmaUmma`,
  `PipelineTmaMultiConsumersAsync`) created with a producer group
  `CooperativeGroup(Agent.Thread, n)` whose size folds to a whole number of warps (32, 128...):
  the group of the warp that issues the TMA copies, where the pipeline wants the one thread
  that arms the barrier. Small groups (2, 5) are left alone: kernels with several producers
  that each arm the barrier with their own share of the bytes use them on purpose (flashinfer's
  MoE kernels);
- a pipeline created in a `@cute.kernel` with `defer_sync=True` when nothing after it in the
  kernel (or in a helper of the file it calls) publishes the barriers: no
  `pipeline_init_arrive` / `pipeline_init_wait`, no CTA or cluster sync, no init fence. A
  `@cute.jit` helper that creates the pipeline leaves that to its caller and is not reported;
- a pipeline state made for one side (`make_pipeline_state(PipelineUserType.Consumer, ...)`)
  passed to the other side's methods (`producer_acquire`, `producer_commit` for a consumer
  state; `consumer_wait`, `consumer_release` for a producer state).

Measured on the H200: a one-stage `PipelineTmaAsync` whose producer group is a 32-thread warp
hung until the watchdog killed it; with `CooperativeGroup(Agent.Thread)` the same kernel ran
and matched. The other two cases were not measured separately (a swapped state waits for the
phase that has not come, like KL302; an unpublished init is KL303's race).

The catalog's other cases (a state never advanced in its loop, a `consumer_wait` with no
`consumer_release`) are not implemented: states are advanced and released through helpers
and pipeline wrappers often enough that the file alone does not tell.

## Why is this bad?
A TMA load pipeline's full barrier is armed by the one thread that issues the copy: it arrives
once, with the transaction byte count. The pipeline initialises the barrier for as many
arrivals as the producer group has threads, so a group of 128 threads waits for 127 arrivals
that never come, and the consumers hang (cutlass issue #2404). `defer_sync=True` skips the
fence and sync after the barriers are initialised; the kernel must do them itself
(`pipeline_init_arrive` / `pipeline_init_wait`), or other threads use uninitialised barriers.
A producer state starts in the phase a producer waits on, a consumer state in the other one;
using one for the other side waits for the wrong phase.

## Example
```python
producer_group = pipeline.CooperativeGroup(pipeline.Agent.Thread, 128)
mainloop = pipeline.PipelineTmaAsync.create(
    barrier_storage=ptr, num_stages=4, producer_group=producer_group,
    consumer_group=consumer_group, tx_count=tma_bytes,
)
```

## Use instead
```python
producer_group = pipeline.CooperativeGroup(pipeline.Agent.Thread)
```
"""
    references = (
        "cutlass issue #2404 (TMA pipeline producer group size); CuTe DSL kernel skill, 'Asynchrony "
        "tier 2: TMA + mbarriers (SM90+)'; `cutlass.pipeline` (nvidia-cutlass-dsl 4.8.1)."
    )

    def check(self, node: ast.Call, ctx):
        pipeline_class = created_pipeline(ctx, node)
        if pipeline_class is not None:
            yield from self._check_create(node, pipeline_class, ctx)
            return
        func = node.func
        if not isinstance(func, ast.Attribute) or ctx.kernel_of(node, "cute") is None:
            return
        wanted = "producer" if func.attr in PRODUCER_METHODS else "consumer" if func.attr in CONSUMER_METHODS else None
        state = argument(node, "state", 0)
        side = state_side(ctx, state) if wanted else None
        if side is not None and side != wanted:
            yield Report(
                node,
                f"`{func.attr}` given `{ast.unparse(state)}`, a {side} state; a {side} state starts in "
                f"the other phase, so the {wanted} waits for the wrong phase: make it with "
                f"`PipelineUserType.{wanted.capitalize()}`",
            )

    def _check_create(self, node: ast.Call, pipeline_class: str, ctx):
        if pipeline_class in TMA_LOAD_PIPELINES:
            size = thread_group_size(ctx, argument(node, "producer_group"))
            if size is not None and size % WARP_SIZE == 0:
                yield Report(
                    node,
                    f"TMA pipeline with a producer group of {size} threads; one thread arms the full "
                    "barrier per stage, so it waits for arrivals that never come: use "
                    "`CooperativeGroup(Agent.Thread)`",
                )
        kernel = ctx.kernel_of(node, "cute")
        if not _is_true(argument(node, "defer_sync")) or kernel is None or KERNEL not in kernel.decorators:
            return  # a `@cute.jit` helper that makes the pipeline leaves publishing to its caller
        function = ctx.function_of(node)
        position = (node.lineno, node.col_offset)
        later = [c for c in subtree(function) if isinstance(c, ast.Call) and (c.lineno, c.col_offset) > position]
        if not any(publishes_through_helpers(ctx, c) for c in later):
            yield Report(
                node,
                "pipeline created with `defer_sync=True` and nothing publishes its barriers afterwards; "
                "call `pipeline_init_arrive(...)` and `pipeline_init_wait(...)` (or fence and sync)",
            )
