"""KL138 low-precision-accumulator: a sum carried across loop iterations of a Triton kernel in fp16/bf16."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.triton.dtypes import conversion_target, created_dtype
from kernelint.model.core.loops import accumulation_target, carried_sum
from kernelint.rules import Report, Rule

_HALF = frozenset({"float16", "bfloat16"})


class LowPrecisionAccumulator(Rule):
    code = "KL138"
    name = "low-precision-accumulator"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.WARNING
    default_enabled = True
    evidence_class = "numerics"
    summary = ("A sum carried across the iterations of a loop in a Triton kernel in an fp16/bf16 accumulator: "
               "every addition rounds the running sum, and the error grows with the trip count.")
    node_types = (ast.AugAssign, ast.Assign)
    doc = """
## What it does
Reports an accumulation inside a loop of a `@triton.jit` function (`acc += x`, `acc = acc + x`,
`acc = tl.dot(a, b, acc)`) when the accumulator starts, before the loop, as an fp16 or bf16
value: `tl.zeros(shape, dtype=tl.float16)`, `tl.full(..., tl.bfloat16)`,
`tl.dot(a, b, out_dtype=tl.float16)`, `x.to(tl.bfloat16)`, or a dtype taken from the input,
`tl.zeros(shape, dtype=x_ptr.dtype.element_ty)`, where every launch the project shows passes an
fp16/bf16 tensor for `x_ptr`. The Triton twin of KL312.

It stays silent on fp32 accumulators (`acc += x.to(tl.float32)`, `tl.zeros(..., tl.float32)`),
on accumulators whose dtype it cannot tell (a constexpr `ACC_TYPE`, a pointer whose tensors it
cannot follow), and where each term is explicitly converted to the accumulator's half type
(`acc = acc + v.to(tl.bfloat16)`): code that emulates half-precision adds bit for bit on
purpose, as reference kernels for atomic bf16 reductions do.

## Why is this bad?
Every addition rounds the running sum to the accumulator's type: bf16 keeps 8 significant bits,
fp16 11. Once the sum is much larger than the terms, each new term loses most of its bits, and
in fp16 a sum past 2048 no longer changes when a value below 1 is added. `tl.dot` accumulates in
fp32 by default for this reason (inductor's bf16 templates lost accuracy when the accumulator
was narrower, pytorch PR #188998; torchrec PR #3730 moved its TBE sums to fp32). Carry the sum
in fp32 and convert once when storing.

Measured on the H200 (Triton 3.6, the record below): row sums of fp16 values in [0, 1) with the
accumulator in the input's element type stalled at 2048 per lane once each lane had added 8,192
terms: 50% low in both such cases (4 x 1M and 128 x 2M columns), against 2.5e-1 absolute with an
fp32 accumulator. With 4 and 128 terms per lane (the controls) the fp16 sums stayed within
tolerance: the rule does not weigh the trip count, which is why it is a warning.

## Example
```python
acc = tl.zeros([BLOCK], dtype=x_ptr.dtype.element_ty)   # fp16 input: fp16 accumulator
for start in range(0, n_cols, BLOCK):
    acc += tl.load(x_ptr + row * n_cols + start + cols, mask=start + cols < n_cols, other=0.0)
tl.store(out_ptr + row, tl.sum(acc, axis=0))
```

## Use instead
```python
acc = tl.zeros([BLOCK], dtype=tl.float32)
for start in range(0, n_cols, BLOCK):
    acc += tl.load(x_ptr + row * n_cols + start + cols, mask=start + cols < n_cols, other=0.0).to(tl.float32)
tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))
```
"""
    references = """
- meta-pytorch/torchrec PR #3730 (TBE forward sums in fp16 before the fp32 accumulator),
  pytorch/pytorch PR #188998 (bf16 `tl.dot` accumulation in inductor templates), PR #141052
  (fp16/bf16 reductions upcast to fp32), fla-org/flash-linear-attention PR #1214 (gradient
  intermediates allocated in the input dtype).
- GitHub issue 23 item 6; KL312, the CuTe DSL rule for the same bug.
"""

    def check(self, node, ctx):
        kernel = ctx.kernel_of(node, "triton")
        if kernel is None:
            return
        carried = carried_sum(ctx, node, updates=lambda statement: _update(ctx, statement))
        if carried is None or not carried.initial:
            return
        found = [created_dtype(ctx, kernel, value) for value in carried.initial]
        if any(f is None or f[0] not in _HALF for f in found):
            return
        dtype, how = found[0]
        if _term_cast_to(ctx, kernel, node, dtype):
            return
        origin = "" if how == "literal" else f" ({how})"
        yield Report(node, f"`{short(carried.target)}` accumulates in {dtype}{origin} across the loop: every "
                           f"addition rounds the running sum; accumulate in tl.float32 and convert when storing")


def _term_cast_to(ctx, kernel, statement: ast.AST, dtype: str) -> bool:
    """The added term is converted to the accumulator's half type on purpose (``acc = acc +
    v.to(tl.bfloat16)``, the term a name bound to such a conversion): code that emulates
    half-precision adds bit for bit, as reference kernels for atomic bf16 reductions do."""
    term = statement.value.right if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.BinOp) \
        else getattr(statement, "value", None)
    values = list(ctx.values_of(term)) if term is not None else []
    return bool(values) and all(v is not None and created_dtype(ctx, kernel, v) == (dtype, "literal")
                                and conversion_target(ctx, v) is not None for v in values)


def _update(ctx, statement: ast.AST) -> tuple[str, ast.expr] | None:
    """``accumulation_target``, and ``acc = tl.dot(a, b, acc)``."""
    found = accumulation_target(statement)
    if found is not None:
        return found
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and ctx.is_call(statement.value, triton.DOT)):
        acc = signature_argument(statement.value, triton.SIGNATURES[triton.DOT], "acc")
        if isinstance(acc, ast.Name) and acc.id == statement.targets[0].id:
            return acc.id, statement.targets[0]
    return None
