"""KL104 erf-needs-fp32: `tl.math.erf` on a value that is not fp32/fp64 does not compile; upcast it
first."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED
from kernelint.edits import insert_after, insert_before, local_name, needs_parentheses
from kernelint.findings import Fix, Severity
from kernelint.model.dsl import triton
from kernelint.model.triton.dtypes import Precision, precision_of
from kernelint.rules import Report, Rule


def _erf_argument(call: ast.Call, ctx) -> ast.expr | None:
    """The argument of an erf call (``tl.math.erf(x)``, ``libdevice.erf(x)``, ``x.erf()``)."""
    name = ctx.call_name(call)
    if name in triton.ERF_FUNCTIONS:
        return call.args[0] if call.args else None
    func = call.func
    if name is None and isinstance(func, ast.Attribute) and func.attr == "erf" and not call.args:
        return func.value
    return None


def _upcast_fix(argument: ast.expr, ctx) -> Fix | None:
    """Append ``.to(tl.float32)`` to the argument, spelled with this file's name for
    ``triton.language``; None when the file imports it under no name."""
    float32 = local_name(ctx.tree, triton.TL + "float32")
    if float32 is None:
        return None
    edits = (insert_before(argument, "("), insert_after(argument, f").to({float32})")) \
        if needs_parentheses(argument) else (insert_after(argument, f".to({float32})"),)
    return Fix("Upcast the erf argument to fp32", edits)


class ErfNeedsFp32(Rule):
    code = "KL104"
    name = "erf-needs-fp32"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "compile"
    summary = "`tl.math.erf` on a value that is not fp32/fp64 does not compile; upcast it first."
    node_types = (ast.Call,)
    calls = triton.ERF_FUNCTIONS | {".erf"}
    doc = """
## What it does
Flags `tl.erf` / `tl.math.erf` / `x.erf()` and libdevice's `erf`, `erfc`, `erfcx`, `erfinv`
and `erfcinv` in a Triton kernel when the argument is not provably fp32 or fp64: either it was
cast to fp16/bf16/fp8, or it was read with `tl.load` and never converted (so its type is the
tensor's, and kernels that serve fp16 or bf16 tensors get a half-precision value).

Values are followed into `@triton.jit` helpers: a helper's parameter holds what its callers in
the same file pass (reported when every caller passes a half or loaded value), and a function
wrapped by a kernel generator above `@triton.jit` (FlagGems' `@pointwise_dynamic`) receives
loaded elements of the caller's tensors.

It stays silent after `.to(tl.float32)`, on fp32 accumulators (`tl.zeros(..., dtype=tl.float32)`,
`tl.dot` results), on quotients (Triton computes `/` in fp32) and whenever the type cannot be
read from the source (a helper nobody in the file calls, callers that pass fp32 at one site and
half at another, a value cast to a `DTYPE` constexpr).

## Why is this bad?
Triton does not promote the argument of these functions. `tl.math.erf` checks that its input is
fp32 or fp64 and raises `ValueError: Expected dtype ['fp32', 'fp64'] but got fp16` (a
`CompilationError` on the GPU), libdevice has no fp16 or bf16 `erf` to dispatch to. Multiplying
by a Python constant keeps the half type: `tl.math.erf(x * 0.7071)` fails just the same.

## Example
```python
x = tl.load(x_ptr + offs, mask=mask)
cdf = 0.5 * (1.0 + tl.math.erf(x * 0.7071067811865476))
```

## Use instead
```python
x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
cdf = 0.5 * (1.0 + tl.math.erf(x * 0.7071067811865476))
```
Do not swap `erf` for the tanh formula to dodge the error: that is a different function
(KL105).
"""
    references = f"""
- {SEED}, 'Triton Math Function Dtype Requirements (CRITICAL)' (its remark that Triton
  auto-promotes fp16 for `erf` did not hold when measured).
- Triton source: `triton/language/math.py`, `_check_dtype(dtypes=["fp32", "fp64"])` on `erf`.
"""
    prior_evidence = """
`tl.math.erf` on fp16 failed with `CompilationError ... Expected dtype ['fp32', 'fp64'] but got
fp16` on an H200 (triton 3.6.0), and with the same `ValueError` under `TRITON_INTERPRET=1`
(triton 3.9.0, CPU).
"""

    def check(self, node, ctx):
        if ctx.kernel_of(node, "triton") is None:
            return
        argument = _erf_argument(node, ctx)
        if argument is None:
            return
        precision = precision_of(ctx, argument)
        if precision is Precision.LOW:
            yield Report(node, "erf of a fp16/bf16 value does not compile: Triton's erf accepts only "
                               "fp32/fp64; upcast with `.to(tl.float32)`", fix=_upcast_fix(argument, ctx))
        elif precision is Precision.LOADED:
            yield Report(node, "erf of a value loaded from memory without `.to(tl.float32)`: fails to "
                               "compile when the tensor is fp16/bf16", fix=_upcast_fix(argument, ctx))

