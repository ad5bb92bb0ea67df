"""KL110 reduction-divides-by-block: a masked reduction divided by the padded block size instead
of the real length."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Severity
from kernelint.model.index import masks
from kernelint.model.dsl import triton
from kernelint.model.core.reaching import value_at
from kernelint.rules import Report, Rule

_SUM = triton.TL + "sum"


class ReductionDividesByBlock(Rule):
    code = "KL110"
    name = "reduction-divides-by-block"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "numerics"
    summary = "A masked reduction divided by the padded block size instead of the real length."
    node_types = (ast.BinOp,)
    doc = """
## What it does
Flags `tl.sum(x, axis) / BLOCK` in a Triton kernel (a mean or a variance) when `x` comes from a
`tl.load` whose offsets span `tl.arange(0, BLOCK)` along the reduced axis and whose mask cuts
that axis against another bound (`cols < n_cols`): the block is padded, and its padding lanes
are counted as data.

It stays silent when the divisor is the real length (`/ n_cols`, `/ D` where `D` sizes an
unmasked or `cols < D`-masked arange), when the reduction runs along an axis the mask does not
cut, and when every launch in the file passes the same value for the block and the bound.

Info and off by default: on the H200 the pair's bad kernel was out of tolerance for a
3000-of-4096 bf16 row (max abs error 1.0) and a 600-of-1024 row (1.52), but a 1000-of-1024 fp32
row stayed inside the pair's 2% tolerance (max abs error 0.069), and the policy needs the effect
in every case. The error grows with the padding, `1 - n / BLOCK`.

## Why is this bad?
With `n_cols = 1000` and `BLOCK = 1024`, `other=0.0` makes the sum right but the mean is
`sum / 1024`: 2.3% too small, and a variance computed the same way is wrong too, so every
normalised value is off by a constant factor. Nothing fails; the numbers are just wrong
whenever the length is not a power of two.

## Example
```python
cols = tl.arange(0, BLOCK)
x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
mean = tl.sum(x, axis=0) / BLOCK
```

## Use instead
```python
mean = tl.sum(x, axis=0) / n_cols
```
"""
    references = f"""
- {SEED}, worked layernorm and softmax examples (blocks padded to a power of two with masks).
"""

    def check(self, node, ctx):
        if not isinstance(node.op, ast.Div) or not isinstance(node.right, ast.Name):
            return
        kernel = ctx.kernel_of(node, "triton")
        if kernel is None or node.right.id not in kernel.constexpr_names(ctx.qualname):
            return
        reduction = self._sum_of(node.left, ctx)
        if reduction is None or not reduction.args:
            return
        reduced = masks.reduction_axis(ctx, reduction)
        for load in masks.loads_feeding(ctx, reduction.args[0]):
            for padded in masks.padded_axes(ctx, load):
                if padded.block != node.right.id or not masks.axis_matches(padded, reduced):
                    continue
                if self._launches_pass_same(ctx, kernel, padded):
                    return
                yield Report(node, f"`{short(node)}` divides a masked sum by the block size "
                                   f"`{padded.block}`, but lanes past `{short(padded.bound)}` are padding: "
                                   f"divide by `{short(padded.bound)}`")
                return

    @staticmethod
    def _sum_of(expr, ctx):
        """The ``tl.sum`` call ``expr`` is (directly or through one name)."""
        if isinstance(expr, ast.Name):
            expr = value_at(ctx, expr)
        if isinstance(expr, ast.Call) and (ctx.call_name(expr) == _SUM or (
            isinstance(expr.func, ast.Attribute) and expr.func.attr == "sum" and ctx.call_name(expr) is None
        )):
            if ctx.call_name(expr) is None:  # x.sum(axis): the receiver is the summed value
                return ast.Call(expr.func, [expr.func.value, *expr.args], expr.keywords)
            return expr
        return None

    @staticmethod
    def _launches_pass_same(ctx, kernel, padded):
        """Every launch of the kernel passes one value for the block and the bound: no padding."""
        if not isinstance(padded.bound, ast.Name):
            return False
        launches = [launch for launch in ctx.launches_of("triton") if launch.kernel is kernel]
        if not launches:
            return False
        for launch in launches:
            bound = launch.bound_arguments()
            block, limit = bound.get(padded.block), bound.get(padded.bound.id)
            if block is None or limit is None:
                return False
            same_text = ast.dump(block) == ast.dump(limit)
            same_int = ctx.resolve_int(block) is not None and ctx.resolve_int(block) == ctx.resolve_int(limit)
            if not (same_text or same_int):
                return False
        return True
