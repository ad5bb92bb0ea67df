"""KL302 mbarrier-phase-not-flipped: A ring of mbarriers is reused while the wait phase stays the
same: the second pass hangs."""
from __future__ import annotations

import ast

from kernelint.checkers.cute.helpers import TMA_SKILL
from kernelint.findings import Severity
from kernelint.model.cute.mbarriers import wait_operands
from kernelint.model.dsl.cute import MBARRIER_WAITS
from kernelint.model.core.loops import assigned_in, ring_modulus, trip_count_at_most
from kernelint.rules import Report, Rule


class MbarrierPhaseNotFlipped(Rule):
    code = "KL302"
    name = "mbarrier-phase-not-flipped"
    family = "cute-pipeline"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "hang"
    summary = "A ring of mbarriers is reused while the wait phase stays the same: the second pass hangs."
    doc = """
## What it does
Reports an mbarrier wait (`cute.arch.mbarrier_wait(bar + s, phase)`, `mbarrier_try_wait`,
`mbarrier_test_wait`, the experimental `mbarrier_wait_parity`) inside a loop whose stage index
wraps around a ring (`s = k % NUM_STAGES`, `s = (s + 1) % NUM_STAGES`, `if s == N: s = 0`) while
the phase passed to the wait is a name or constant the loop never rebinds. Waits whose phase is
computed per iteration (`(k // NUM_STAGES) & 1`) and `cutlass.pipeline` states (`PipelineState`,
`consumer_wait(state)`), which flip their phase in `advance()`, are not reported.

## Why is this bad?
An mbarrier alternates between an even and an odd phase each time it completes, and a wait
names the parity of the phase it waits for. After the ring wraps, the same barrier completes a
second time, so the parity to wait for is the other one. Waiting on the old parity then waits
for a phase that already passed and is now current again: it never completes, and the kernel
hangs (or, if the wait happens to run early, returns at once and reads stale data).

## Example
```python
phase = cutlass.Int32(0)
for k in cutlass.range(num_tiles):
    s = k % NUM_STAGES
    cute.arch.mbarrier_wait(full + s, phase)
    ...
```

## Use instead
Flip the phase whenever the stage index wraps, or use `cutlass.pipeline` with a
`PipelineState` that does it for you:
```python
phase = cutlass.Int32(0)
for k in cutlass.range(num_tiles):
    s = k % NUM_STAGES
    cute.arch.mbarrier_wait(full + s, phase)
    ...
    if s == NUM_STAGES - 1:
        phase ^= 1
```
"""
    references = f"{TMA_SKILL} (every consumer tracks `(index, phase)` and flips phase each wrap); 'Failure → diagnosis table', row 'Hang'."
    node_types = (ast.Call,)
    calls = frozenset(MBARRIER_WAITS)

    def check(self, node: ast.Call, ctx):
        operands = wait_operands(ctx, node)
        if operands is None:
            return
        barrier, phase = operands
        if isinstance(phase, ast.Name):
            phase_name = phase.id
        elif isinstance(phase, ast.Constant) and phase.value in (0, 1):
            phase_name = None
        else:
            return
        for loop in ctx.loops_of(node):
            bound = ring_modulus(loop, barrier)
            if bound is None:
                continue
            if trip_count_at_most(ctx, loop, bound) or (phase_name and assigned_in(loop, phase_name)):
                return
            yield Report(
                node,
                f"mbarrier wait with phase `{ast.unparse(phase)}` in a loop that wraps the stage index "
                f"(`% {ast.unparse(bound)}`) but never flips the phase; the second pass over a stage "
                "waits for a phase that has already completed and hangs",
            )
            return

