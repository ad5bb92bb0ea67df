"""KL312 low-precision-accumulation: a sum carried across loop iterations in a bf16/fp16
scalar or register fragment."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.static import low_precision_value
from kernelint.model.core.loops import accumulation_target, carried_sum
from kernelint.rules import Report, Rule

#: Warp reductions (``cute.arch.warp_reduction(value, op)``) and the sum-only spelling.
_WARP_REDUCTIONS = ("warp_reduction", "warp_reduction_sum")


class LowPrecisionAccumulation(Rule):
    code = "KL312"
    name = "low-precision-accumulation"
    family = "cute-numerics"
    dsl = "cute"
    severity = Severity.WARNING
    evidence_class = "numerics"
    summary = "A sum carried across loop iterations in a bf16/fp16 accumulator: rounding error grows with the length."
    node_types = (ast.AugAssign, ast.Assign, ast.Call)
    calls = frozenset("." + name for name in _WARP_REDUCTIONS)
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

It also reports such a bf16/fp16 value handed to a warp reduction that sums it
(`cute.arch.warp_reduction(acc, lambda a, b: a + b)`, `warp_reduction_sum(acc)`): the partial
sums of the butterfly steps are rounded to bf16/fp16 as well. Reductions by maximum or minimum
round nothing and are not reported.

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
        if isinstance(node, ast.Call):
            yield from self._warp_sum(node, ctx)
            return
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


    @staticmethod
    def _warp_sum(node, ctx):
        """The seed's form: a bf16/fp16 accumulator handed to a warp reduction that sums it, so
        the 32 lanes' values are added in bf16/fp16 too (five rounding butterfly steps)."""
        if not node.args or not _warp_reduction(ctx, node) or ctx.kernel_of(node, "cute") is None:
            return
        name = ctx.call_name(node).rsplit(".", 1)[-1]
        op = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "op"), None)
        if name == "warp_reduction" and not _is_addition(ctx, op):
            return
        kind = _low_precision_accumulator(ctx, node.args[0], node)
        if kind is None:
            return
        yield Report(
            node,
            f"`{ast.unparse(node.args[0])}` is a {kind.rsplit('.', 1)[-1]} value summed across the warp: every "
            "butterfly step rounds the partial sums to it; convert to `cutlass.Float32` before the reduction "
            "and back after it",
        )


def _is_addition(ctx, op: ast.AST | None) -> bool:
    """``lambda a, b: a + b`` or ``operator.add``: the reduction sums."""
    if isinstance(op, ast.Lambda) and isinstance(op.body, ast.BinOp) and isinstance(op.body.op, ast.Add):
        names = [a.arg for a in op.args.args]
        sides = [n.id for n in (op.body.left, op.body.right) if isinstance(n, ast.Name)]
        return len(names) == 2 and sorted(sides) == sorted(names)
    return op is not None and ctx.qualname(op) == "operator.add"


def _low_precision_accumulator(ctx, value: ast.AST, reduction: ast.Call) -> str | None:
    """The bf16/fp16 type ``value`` has when every binding of it that is not an addition into it
    (nor the reduction's own result) makes a bf16/fp16 scalar or fragment
    (``acc = cutlass.BFloat16(0.0)``, then ``acc += x``)."""
    if isinstance(value, ast.Call):
        return low_precision_value(ctx, value)
    if not isinstance(value, ast.Name):
        return None
    kind = None
    for definition in ctx.definitions(value.id, value):
        found = accumulation_target(definition.node)
        if found is not None and found[0] == value.id:
            continue
        if definition.value is not None and any(n is reduction for n in ast.walk(definition.value)):
            continue
        kind = low_precision_value(ctx, definition.value) if definition.value is not None else None
        if kind is None:
            return None
    return kind


def _warp_reduction(ctx, call: ast.Call) -> bool:
    name = ctx.call_name(call) or ""
    return name.startswith("cutlass.") and name.rsplit(".", 1)[-1] in _WARP_REDUCTIONS
