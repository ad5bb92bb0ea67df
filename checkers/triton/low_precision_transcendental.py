"""KL114 low-precision-transcendental: `tl.exp`/`tl.log`/`tl.sqrt` (and their relatives) on an
fp16/bf16 value does not compile; upcast it first."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Severity
from kernelint.model.triton.dtypes import Precision, precision_of
from kernelint.model.dsl import triton
from kernelint.model.project.host import loaded_dtypes
from kernelint.rules import Report, Rule

#: Functions Triton's ``math.py`` declares for fp32/fp64 only (``_check_dtype``), by their
#: public names; ``x.exp()`` and friends are the same functions as tensor methods.
_NAMES = ("exp", "exp2", "log", "log2", "sin", "cos", "sqrt", "rsqrt")
_FUNCTIONS = frozenset(f"{triton.TL}{n}" for n in _NAMES) | frozenset(f"{triton.TL}math.{n}" for n in _NAMES)


_HALF = frozenset({"float16", "bfloat16"})
_WIDE = frozenset({"float32", "float64"})


class LowPrecisionTranscendental(Rule):
    code = "KL114"
    name = "low-precision-transcendental"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.INFO
    # Reproduced on the H200, but on real code the loaded values these functions take are
    # mostly fp32 state (decay cumsums, norms, optimizer buffers): 5 of 75 judged true.
    default_enabled = False
    evidence_class = "compile"
    summary = "`tl.exp`/`tl.log`/`tl.sqrt` on an fp16/bf16 value does not compile; upcast it first."
    node_types = (ast.Call,)
    doc = """
## What it does
Flags `tl.exp`, `tl.exp2`, `tl.log`, `tl.log2`, `tl.sin`, `tl.cos`, `tl.sqrt` and `tl.rsqrt`
(also as `tl.math.*` and as tensor methods, `x.exp()`) in a Triton kernel when the argument is
not provably fp32 or fp64: cast to fp16/bf16, or read with `tl.load` and never converted.
Values are followed as for KL104, into `@triton.jit` helpers whose callers all pass such a
value.

It stays silent after `.to(tl.float32)`, on `tl.dot` results and fp32 accumulators, on
quotients (computed in fp32) and where the type cannot be read.

Info and off by default: the compile error reproduced on the H200 (triton 3.6.0), but on real
kernels the loaded value is usually an fp32 buffer (a decay cumsum, a running norm, an optimizer
state) whose dtype the kernel text does not show; of 75 findings on 13 repositories, 5 were
values that can be half precision (docs/precision.md). Enable it when porting code that
handles fp16/bf16 activations.

## Why is this bad?
The seed presents this as a precision problem (fp16 `exp` feeding a sum loses accuracy or
overflows). In the Triton versions measured here it is a compile error: these functions check
that their input is fp32 or fp64, like `erf` (KL104), and stop with `Expected dtype ['fp32',
'fp64'] but got fp16`. The fix is the same either way: upcast before the call, and reduce in
fp32.

## Example
```python
x = tl.load(x_ptr + offs, mask=mask, other=-float("inf"))
p = tl.exp(x - tl.max(x, axis=0))
```

## Use instead
```python
x = tl.load(x_ptr + offs, mask=mask, other=-float("inf")).to(tl.float32)
p = tl.exp(x - tl.max(x, axis=0))
```
"""
    references = f"""
- {SEED}, 'Gotchas' table, row '`tl.exp` with fp16' (claims precision loss or NaN).
- Triton source: `triton/language/math.py`, `_check_dtype(dtypes=["fp32", "fp64"])` on `exp`,
  `log`, `sqrt` and the other one-argument math functions.
"""

    def check(self, node, ctx):
        kernel = ctx.kernel_of(node, "triton")
        if kernel is None:
            return
        argument = self._argument(node, ctx)
        if argument is None:
            return
        precision = precision_of(ctx, argument)
        function = (ctx.call_name(node) or node.func.attr).rsplit(".", 1)[-1]
        if precision is Precision.LOW:
            yield Report(node, f"`{function}` of a fp16/bf16 value does not compile: Triton's "
                               f"math functions accept only fp32/fp64; upcast with `.to(tl.float32)`")
        elif precision is Precision.LOADED:
            host = loaded_dtypes(ctx.project, ctx, kernel, argument)
            low = sorted(set(host.known) & _HALF)
            if low:
                where = host.known[low[0]]
                yield Report(node, f"`{function}` of a value loaded from a {low[0]} tensor (made at {where}) "
                                   f"without `.to(tl.float32)`: does not compile; upcast first")
            elif not host.only(_WIDE):
                yield Report(node, f"`{function}` of a value loaded from memory without "
                                   f"`.to(tl.float32)`: fails to compile when the tensor is fp16/bf16")

    @staticmethod
    def _argument(call, ctx):
        name = ctx.call_name(call)
        if name in _FUNCTIONS:
            return call.args[0] if call.args else None
        func = call.func
        if name is None and isinstance(func, ast.Attribute) and func.attr in _NAMES and not call.args:
            return func.value
        return None
