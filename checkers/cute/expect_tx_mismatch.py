"""KL304 expect-tx-mismatch: an mbarrier armed for a byte count that differs from the bytes the
TMA loads completing on it deliver."""
from __future__ import annotations

import ast
from itertools import combinations

from kernelint.checkers.cute.helpers import TMA_SKILL
from kernelint.findings import Severity
from kernelint.model.cute.static import traced_functions
from kernelint.model.cute.tx import (
    TMA_PIPELINE_CREATES,
    expect_tx,
    folded_bytes,
    pipeline_barrier_of,
    tma_barrier,
    tma_load_bytes,
    tma_pipeline_tx_count,
)
from kernelint.model.dsl.cute import COPY, EXPECT_TX
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree

_MAX_COPIES = 10


def _shares(byte_counts: list[int]) -> set[int]:
    """Every sum of a non-empty subset of the copies' byte counts: what one producer may arm the
    barrier for when several producers each arm it for their own copies."""
    return {sum(c) for r in range(1, len(byte_counts) + 1) for c in combinations(byte_counts, r)}


class ExpectTxMismatch(Rule):
    code = "KL304"
    name = "expect-tx-mismatch"
    family = "cute-pipeline"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "hang"
    summary = ("`mbarrier_arrive_and_expect_tx(bar, n)` with a byte count that differs from the bytes the TMA "
               "loads completing on `bar` deliver: the barrier never completes its phase (hang).")
    node_types = (ast.Call,)
    calls = frozenset(EXPECT_TX) | TMA_PIPELINE_CREATES
    doc = """
## What it does
Reports `cute.arch.mbarrier_arrive_and_expect_tx(bar, n)` and `cute.arch.mbarrier_expect_tx(bar, n)`
in CuTe DSL kernel code when `n` folds to a number of bytes and the TMA loads that complete on
the same barrier in the same function (`cute.copy(tma_atom, src, dst, tma_bar_ptr=bar)`) deliver
a different number. The rule counts bytes only where they are fixed while the kernel is traced:
integer constants, `cute.size_in_bytes(dtype, layout)` and `cute.size(layout)` with an element
type of fixed width (`cutlass.Float16`) and a layout of constant shape, and sums and products of
these. A TMA load delivers the bytes of the shared-memory tensor it writes (traced back through
`cpasync.tma_partition` and `cute.group_modes` to `allocate_tensor(dtype, layout)`, one stage when
the destination is indexed by stage); an atom made with `CopyBulkTensorTileG2SOp(cta_group=CtaGroup.TWO)`
also completes the peer CTA's copy on the leader's barrier, so it counts twice.

It stays silent when any of this does not resolve: an element type read from a tensor at run
time (`mA.element_type`, what most library kernels use), layouts built by helper functions
(swizzled `ComposedLayout`s), multicast loads, an atom that cannot be followed to
`make_tiled_tma_atom`, copies in a loop the `expect_tx` is not in, copies in another function,
and `expect_tx` on a peer CTA's barrier (`peer_cta_rank_in_cluster`). Several producers that
each arm the barrier for their own share (A bytes in one warp, B bytes in another) are correct:
a count equal to the bytes of any subset of the copies is not reported.

The `tx_count=` of a TMA load pipeline (`PipelineTmaAsync`, `PipelineTmaUmma`,
`PipelineTmaMultiConsumersAsync`) bound to a name is checked the same way against the copies
that complete on `<pipeline>.producer_get_barrier(state)` in the same function, when they sit
in the loops of its `producer_acquire`. Pipelines used through `make_participants()` handles
are not followed.

Measured on the H200 (reproduced): a 2048x1024 fp16 matrix copied through shared memory in
128x64 TMA tiles, each CTA's barrier armed with `cute.size_in_bytes(cutlass.Float32, layout)`
(32,768 bytes) for a tile that delivers 16,384, was still waiting when the 60 s watchdog killed
it; with the fp16 byte count the same kernel finished and matched exactly. Error, on by
default: it reports only when both byte counts fold, and over CUTLASS's examples and DSL
library, quack, flashinfer and flash-attention it reports nothing (26 of 67 `expect_tx` counts
fold there, no TMA load's bytes do), so it has raised no false finding; how often it catches a
real mismatch is not measured.

## Why is this bad?
`expect_tx` adds `n` to the barrier's pending transaction count, and each TMA load subtracts
the bytes it writes when they land. The phase completes only when the arrivals are done and the
count is back at zero. If `n` is larger than what the loads deliver (bytes computed for the
wrong element type, for all pipeline stages instead of one, or for operands this barrier does
not receive) the count never returns to zero and every thread waiting on the barrier spins
forever. If `n` is smaller (2-CTA loads not multiplied by the CTA-group size), the phase
completes before all data has landed and the bytes still in flight complete on the next phase.

## Example
```python
s_tile = smem.allocate_tensor(cutlass.Float16, cute.make_layout((128, 64)), byte_alignment=1024)
...
with cute.arch.elect_one():
    cute.arch.mbarrier_arrive_and_expect_tx(bar, cute.size_in_bytes(cutlass.Float32, smem_layout))
cute.copy(tma_atom, tAgA[(None, bidx, bidy)], tAsA, tma_bar_ptr=bar)
cute.arch.mbarrier_wait(bar, 0)
```

## Use instead
```python
with cute.arch.elect_one():
    cute.arch.mbarrier_arrive_and_expect_tx(bar, cute.size_in_bytes(cutlass.Float16, smem_layout))
cute.copy(tma_atom, tAgA[(None, bidx, bidy)], tAsA, tma_bar_ptr=bar)
cute.arch.mbarrier_wait(bar, 0)
```
"""
    references = f"""
- {TMA_SKILL}: "`expect_tx` bytes must equal exactly what the TMA writes to that barrier
  (multiply by `cta_group_size` for 2-CTA MMAs)"; failure table: hang from wrong expect_tx bytes.
"""

    def check(self, node: ast.Call, ctx):
        armed = expect_tx(ctx, node)
        pipeline = tma_pipeline_tx_count(ctx, node) if armed is None else None
        if armed is None and pipeline is None:
            return  # most calls: decided by the called name alone
        function = ctx.function_of(node)
        if function is None or id(function) not in traced_functions(ctx):
            return
        if armed is not None:
            barrier, count = armed
            key = ast.dump(barrier)
            copies = [c for c in self._tma_copies(ctx, function) if ast.dump(tma_barrier(c)) == key]
            # armed once per copy: the copies sit in exactly the loops the expect_tx sits in
            arming = node
        else:
            name, count = pipeline
            copies = [c for c in self._tma_copies(ctx, function) if pipeline_barrier_of(tma_barrier(c)) == name]
            # a pipeline arms a stage in producer_acquire: the copies sit in the acquire's loops
            arming = next((c for c in subtree(function) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                           and c.func.attr in ("producer_acquire", "producer_try_acquire")
                           and ast.unparse(c.func.value) == name), None)
            if arming is None:
                return
        yield from self._compare(ctx, node if armed is not None else count, arming, count, copies)

    @staticmethod
    def _tma_copies(ctx, function) -> list[ast.Call]:
        return [c for c in subtree(function)
                if isinstance(c, ast.Call) and ctx.call_name(c) == COPY and tma_barrier(c) is not None]

    def _compare(self, ctx, node: ast.AST, arming: ast.Call, count: ast.expr, copies: list[ast.Call]):
        expected = folded_bytes(ctx, count)
        if expected is None or not copies or len(copies) > _MAX_COPIES:
            return
        loops = ctx.loops_of(arming)
        if any(ctx.loops_of(c) != loops for c in copies):
            return  # a copy repeated per armed phase, or armed once per several copies
        delivered = [tma_load_bytes(ctx, c) for c in copies]
        if any(d is None for d in delivered) or expected in _shares(delivered):
            return
        total = sum(delivered)
        effect = ("the phase never completes and every waiting thread hangs" if expected > total else
                  "the phase completes before the data has landed")
        yield Report(
            node,
            f"barrier armed for {expected} bytes but the TMA load{'s' if len(copies) > 1 else ''} completing "
            f"on it deliver{'' if len(copies) > 1 else 's'} {total}: {effect}; expect exactly the bytes "
            f"the copies write (`cute.size_in_bytes(dtype, one_stage_layout)`, times the CTA-group size for 2-CTA loads)",
        )
