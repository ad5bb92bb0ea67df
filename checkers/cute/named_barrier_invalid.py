"""KL318 named-barrier-invalid: a named barrier outside ids 0..15 or for a thread count that is
not whole warps."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.resources import named_barrier
from kernelint.model.cute.static import cute_int
from kernelint.model.dsl.cute import NAMED_BARRIER_COUNT, NAMED_BARRIERS, WARP_SIZE
from kernelint.rules import Report, Rule


class NamedBarrierInvalid(Rule):
    code = "KL318"
    name = "named-barrier-invalid"
    family = "cute-sync"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "compile"
    summary = "A named barrier with a thread count that is not a multiple of 32, or an id outside 0..15."
    node_types = (ast.Call,)
    calls = frozenset(NAMED_BARRIERS)
    doc = """
## What it does
Reports named barriers (`cute.arch.barrier(barrier_id=..., number_of_threads=...)`,
`cute.arch.barrier_arrive(...)`, `pipeline.NamedBarrier(barrier_id, num_threads)`) when a
value folds to something the hardware cannot do: a thread count that is not a multiple of 32,
or an id outside 0..15. Values are followed through constants and the `self.<attr>`
configuration of a kernel class. A `NamedBarrier(...)` stored in a name or attribute that
nothing in the file reads (`ctx.result_never_read`) is not reported: a barrier never synced on
cannot fail.

Id 0 is not reported. It is the id `sync_threads()` uses, and a named barrier on it with a
count below the CTA's size mixes its arrivals with whole-CTA barriers; but CUTLASS's own
Blackwell GEMMs (and flashinfer's and flash-attention's copies of them) use
`NamedBarrier(barrier_id=0, num_threads=threads_per_cta)`, the whole CTA, which is correct.
Telling the two apart needs the CTA size at the barrier, which the model does not follow;
CuTe DSL warns about id 0 itself while tracing.

## Why is this bad?
A CTA has 16 hardware barriers, ids 0 to 15; `NamedBarrier` refuses other ids while
tracing. Arrivals are counted per warp, so the thread count of a PTX `bar.sync` / `bar.arrive`
must be a multiple of the warp size: a count like 100 (the valid columns of a padded row, a
thread count minus a remainder) is not a barrier the hardware can complete as written. Measured
on the H200: a `cute.arch.barrier(barrier_id=1, number_of_threads=100)` makes `ptxas` stop with
`Number of threads participating in barrier must be in multiple of warp size`; the pair with 128
compiles and runs correctly. The out-of-range id was not measured (`NamedBarrier` raises
`ValueError` for it while tracing).

## Example
```python
epilogue_barrier = pipeline.NamedBarrier(barrier_id=16, num_threads=256)
cute.arch.barrier(barrier_id=1, number_of_threads=100)
```

## Use instead
```python
epilogue_barrier = pipeline.NamedBarrier(barrier_id=1, num_threads=256)
cute.arch.barrier(barrier_id=2, number_of_threads=128)
```
"""
    references = (
        "CuTe DSL kernel skill, 'Warp specialisation' (named barriers, thread counts per agent); "
        "PTX ISA, `bar.sync` / `barrier.cta` (16 barriers, counts in multiples of the warp size); "
        "`cutlass.pipeline.NamedBarrier` (warns on id 0)."
    )

    def check(self, node: ast.Call, ctx):
        use = named_barrier(ctx, node)
        if use is None or ctx.result_never_read(node):
            return
        count = cute_int(ctx, use.thread_count)
        barrier_id = cute_int(ctx, use.barrier_id)
        if count is not None and count % WARP_SIZE != 0:
            yield Report(
                node,
                f"named barrier for {count} threads; arrivals are counted in whole warps, so the "
                f"count must be a multiple of {WARP_SIZE}",
            )
        elif barrier_id is not None and not 0 <= barrier_id < NAMED_BARRIER_COUNT:
            yield Report(node, f"named barrier id {barrier_id}; a CTA has barriers 0..{NAMED_BARRIER_COUNT - 1}")
