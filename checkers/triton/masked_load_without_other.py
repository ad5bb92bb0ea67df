"""KL111 masked-load-without-other: a masked `tl.load` without `other=` feeding a max/min along
the axis its mask cuts."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Severity
from kernelint.model.index import masks
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.rules import Report, Rule

#: Reductions whose answer the padding lanes change when they are not the reduction's identity.
_EXTREMA = frozenset(triton.TL + n for n in ("max", "min", "argmax", "argmin"))
_SOFTMAX = triton.TL + "softmax"
_ABS = frozenset({triton.TL + "abs", triton.TL + "math.abs"})


class MaskedLoadWithoutOther(Rule):
    code = "KL111"
    name = "masked-load-without-other"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.ERROR
    default_enabled = False
    evidence_class = "numerics"
    summary = "A masked `tl.load` without `other=` feeds a max/min along the axis its mask cuts."
    wants_finish = True
    doc = """
## What it does
Flags `tl.load(..., mask=m)` without `other=` in a Triton kernel when the loaded value reaches
`tl.max`, `tl.min`, `tl.argmax`, `tl.argmin` or `tl.softmax` reducing along the axis the mask
cuts (`cols < n_cols` on a `tl.arange(0, BLOCK)` block).

It stays silent when `other=` is given, when the value passes through `tl.where` first (the
usual way to put `-inf` into the padding), when the reduction runs along an axis the mask does
not cut, and for the maximum of absolute values (`tl.max(tl.abs(x))`), which padding with zeros
cannot change.

Off by default: it reproduced on the H200, but it had no findings on the 13 repositories judged
for precision, so its precision is not measured yet.

## Why is this bad?
Triton leaves the value of a masked-off lane unspecified; in practice the lanes read as zero.
A row whose real values are all negative then has maximum 0, not its largest element, and a
softmax built on that maximum is shifted; `tl.min` of positive data returns 0 the same way.
Only `other=-float("inf")` (max) or `other=float("inf")` (min) makes the padding neutral.

## Example
```python
cols = tl.arange(0, BLOCK)
x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols)
row_max = tl.max(x, axis=0)
```

## Use instead
```python
x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
row_max = tl.max(x, axis=0)
```
"""
    references = f"""
- {SEED}, worked softmax example (`other=-float("inf")` on the masked row load).
- Triton documentation, `triton.language.load`: masked-off lanes take `other`, undefined without it.
"""

    def finish(self, ctx):
        reported: set[int] = set()
        for call in ctx.nodes(ast.Call):
            name = ctx.call_name(call)
            if name not in _EXTREMA and name != _SOFTMAX:
                continue
            if ctx.kernel_of(call, "triton") is None or not call.args:
                continue
            value = call.args[0]
            if name == triton.TL + "max" and self._absolute(ctx, value):
                continue
            reduced = masks.reduction_axis(ctx, call) if name != _SOFTMAX else 1
            for load in self._loads_without_where(ctx, value):
                if id(load) in reported or signature_argument(load, triton.SIGNATURES[triton.LOAD], "other") is not None:
                    continue
                if any(masks.axis_matches(p, reduced) for p in masks.padded_axes(ctx, load)):
                    reported.add(id(load))
                    yield Report(load, f"masked load without `other=` feeds `{short(call)}` (line {call.lineno}): "
                                       f"masked-off lanes are undefined (zero in practice) and change the "
                                       f"result; pass `other=` the reduction's identity (`-float('inf')` for max)")

    @staticmethod
    def _loads_without_where(ctx, value):
        """Loads feeding ``value`` not through a ``tl.where`` (which usually fills the padding)."""
        return masks.loads_feeding(ctx, value, through=lambda n: not ctx.is_call(n, triton.WHERE))

    @staticmethod
    def _absolute(ctx, value):
        """``tl.abs(x)`` / ``abs(x)`` at the top of the reduced value (through one name)."""
        for _ in range(2):
            if isinstance(value, ast.Call) and (
                ctx.call_name(value) in _ABS or (isinstance(value.func, ast.Name) and value.func.id == "abs")
            ):
                return True
            if not isinstance(value, ast.Name):
                return False
            definitions = ctx.definitions(value.id, value)
            if len(definitions) != 1 or definitions[0].value is None:
                return False
            value = definitions[0].value
        return False
