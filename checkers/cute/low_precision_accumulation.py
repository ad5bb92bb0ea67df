"""KL312 low-precision-accumulation: a sum carried across loop iterations in a bf16/fp16
scalar or register fragment."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute_static import low_precision_value
from kernelint.model.loops import carried_sum
from kernelint.rules import Report, Rule


class LowPrecisionAccumulation(Rule):
    code = "KL312"
    name = "low-precision-accumulation"
    family = "cute-numerics"
    dsl = "cute"
    severity = Severity.WARNING
    evidence_class = "numerics"
    summary = "A sum carried across loop iterations in a bf16/fp16 accumulator: rounding error grows with the length."
    node_types = (ast.AugAssign, ast.Assign)
    doc = """
## What it does
Reports, in a `@cute.jit` / `@cute.kernel` function, an addition into an accumulator inside a
loop (`acc += x`, `acc = acc + x`, `acc[i] += x`) when the accumulator is created before the
loop as a bf16 or fp16 value: `cutlass.BFloat16(0.0)`, `cutlass.Float16(0.0)`, or a register
fragment `cute.make_rmem_tensor(shape, cutlass.BFloat16)` / `make_fragment(...)`. The element
type is followed through names and `self.<attr>` configuration. Sums written through a helper
(`acc = bf16_add(acc, x)`, as bit-exact reference code does on purpose) are not reported, nor
element-wise updates whose loop picks the element (`for i: acc[i] = acc[i] + red[i]` adds
once per element).

## Why is this bad?
Every addition rounds the running sum to the accumulator's type. bf16 keeps 8 significant bits
and fp16 11, so once the sum is much larger than the terms, each new term loses most of its
bits; over hundreds or thousands of terms the error grows far beyond the inputs' own precision.
Tensor-core MMAs accumulate in fp32 for this reason. Keep the inputs in bf16 if you like, but
carry the sum in `cutlass.Float32` and convert once at the end. Measured on the H200: row sums
of 4096 bf16 values carried in a bf16 scalar were off by up to 37 (8,100 of 8,192 rows out of
tolerance), against 3e-5 with an fp32 scalar. A short loop loses less; the rule does not weigh
the trip count, which is why it is a warning.

## Example
```python
acc = cutlass.BFloat16(0.0)
for j in cutlass.range(n):
    acc += x[row, j]
```

## Use instead
```python
acc = cutlass.Float32(0.0)
for j in cutlass.range(n):
    acc += x[row, j].to(cutlass.Float32)
out[row] = acc.to(out.element_type)
```
"""
    references = "CuTe DSL kernel skill, 'Device-side compute' (reductions in fp32, `.to(cutlass.Float32)` before accumulating)."

    def check(self, node, ctx):
        carried = carried_sum(ctx, node)
        if carried is None or ctx.kernel_of(node, "cute") is None:
            return
        element_type = None
        for value in carried.initial:
            kind = low_precision_value(ctx, value)
            if kind is None:
                return
            element_type = kind
        if element_type is None:
            return
        target = carried.target
        yield Report(
            node,
            f"`{ast.unparse(target)}` accumulates in {element_type.rsplit('.', 1)[-1]} across loop iterations; every "
            "addition rounds the running sum: accumulate in `cutlass.Float32` and convert at the end",
        )
