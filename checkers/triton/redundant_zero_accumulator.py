"""KL209 redundant-zero-accumulator: `tl.dot(a, b, acc)` where `acc` is only ever a fresh zero tile."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Confidence, Severity
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl.triton import DOT, FULL, SIGNATURES, ZEROS
from kernelint.model.core.reaching import reaching_definitions
from kernelint.rules import Report, Rule


class RedundantZeroAccumulator(Rule):
    code = "KL209"
    name = "redundant-zero-accumulator"
    family = "triton-compute"
    dsl = "triton"
    severity = Severity.INFO
    confidence = Confidence.HIGH
    default_enabled = False
    evidence_class = "perf"
    summary = "`tl.dot(a, b, acc)` whose accumulator is always a fresh zero tile."
    node_types = (ast.Call,)
    doc = """
## What it does
Flags `tl.dot(a, b, acc)` (or `acc=acc`) where every value `acc` can have at that point is a
zero tile made by `tl.zeros(...)` or `tl.full(..., 0, ...)`: the accumulator is not carried
from an earlier product, so `tl.dot(a, b)` computes the same thing. Stays silent on loop-carried
accumulators (`acc = tl.dot(a, b, acc)` in a K loop) and on accumulators that may hold an earlier
result.

Info and off by default: on an H200 with triton 3.6 the zero accumulator cost nothing. In a
two-product attention-style kernel (scores into a fresh zero tile, then scores times V), fp16
and bf16, head dims 64 and 128, 4,096 and 16,384 keys, the median bad/good time was 1.00x
(1.00-1.01x over 4 shapes; *Evidence*); the PTX of the two kernels differs by one line. The
compiler starts the MMA from zero either way.

## Why is this bad?
It reads as if an accumulation were carried, and it used to cost a zero fill and an add on
some compilers. On current Triton it is a question of clarity, not speed.

## Example
```python
for start_n in range(0, seq_len, BLOCK_N):
    scores = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    scores = tl.dot(q, kt, scores)
```

## Use instead
```python
for start_n in range(0, seq_len, BLOCK_N):
    scores = tl.dot(q, kt)
```
"""
    references = f"""
- {SEED}, 'Triton Optimization Reference', the note on a zero accumulator passed once to a
  three-argument `tl.dot` (claims a small cost).
"""

    def check(self, node, ctx):
        if not ctx.is_call(node, DOT) or ctx.kernel_of(node, "triton") is None:
            return
        acc = signature_argument(node, SIGNATURES[DOT], "acc")
        if not isinstance(acc, ast.Name):
            return
        definitions = reaching_definitions(ctx, acc)
        if definitions and all(self._zero_tile(d.value, ctx) for d in definitions):
            yield Report(
                acc,
                f"`{acc.id}` is always a fresh zero tile here; `tl.dot({short(node.args[0], 20)}, "
                f"{short(node.args[1], 20) if len(node.args) > 1 else '...'})` without it computes the same",
            )

    @staticmethod
    def _zero_tile(value, ctx) -> bool:
        if ctx.is_call(value, ZEROS):
            return True
        if ctx.is_call(value, FULL):
            fill = signature_argument(value, SIGNATURES[FULL], "value")
            return isinstance(fill, ast.Constant) and fill.value == 0
        return False
