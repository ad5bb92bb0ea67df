"""KL403 cutile-mma-without-tf32-guard: `ct.mma` on float32 tiles multiplies in full fp32, where a
Triton port's `tl.dot` uses tf32."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Severity
from kernelint.model.core.calls import signature_argument
from kernelint.model.cutile.tiles import launched_int, tile_dtype, tile_function_of, tile_shape
from kernelint.model.dsl import cutile
from kernelint.rules import Report, Rule

_PRODUCTS = (cutile.MMA, cutile.MATMUL)
#: Triton's ``tl.dot`` needs every extent to be at least 16: a narrower product is ported as a
#: reduction (``tl.sum``) in fp32, so there is no tf32 ``tl.dot`` to disagree with.
_MIN_DOT_EXTENT = 16


def _narrower_than_a_dot(ctx, call: ast.Call, operands: list) -> bool:
    acc = signature_argument(call, cutile.SIGNATURES[cutile.MMA], "acc") if ctx.call_name(call) == cutile.MMA else None
    kernel = next((k for k in ctx.kernels if k.node is ctx.function_of(call)), None)
    for tile in (*operands, acc):
        shape = (tile_shape(ctx, tile) or []) if tile is not None else []
        if tile is not acc and len(shape) == 1:
            return True  # a vector operand: a dot or matrix-vector product, never a tensor-core tile
        for extent in shape:
            size = ctx.resolve_int(extent)
            if size is None and kernel is not None:
                size = launched_int(ctx, kernel, extent)
            if size is not None and size < _MIN_DOT_EXTENT:
                return True
    return False


class CutileMmaWithoutTf32Guard(Rule):
    code = "KL403"
    name = "cutile-mma-without-tf32-guard"
    family = "cutile-numerics"
    dsl = "cutile"
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "numerics"
    summary = ("`ct.mma`/`ct.matmul` on float32 tiles multiplies in full fp32, not tf32 as a Triton "
               "port's `tl.dot` does: the two disagree beyond fp32 tolerance.")
    node_types = (ast.Call,)
    doc = """
## What it does
Flags `ct.mma(x, y, acc)` and `ct.matmul(x, y)` in cuTile tile code when an operand is provably
a float32 tile: converted with `ct.astype(t, ct.float32)` / `t.astype(ct.float32)`, or built
with `ct.full/zeros/ones(..., dtype=ct.float32)`, through names and elementwise arithmetic.

A tile loaded from an array has the array's dtype, which the kernel text does not state, so
operands loaded and passed on as they are are not reported (most kernels), nor are operands
converted to a dtype chosen at run time (`dtype = ct.tfloat32 if A.dtype == ct.float32 else
A.dtype`). Products with an extent below 16 (a `(1, N)` row of weights times a tile: a weighted
sum written as an mma) are not reported either: Triton's `tl.dot` needs 16 or more in every
extent, so a port computes them with `tl.sum` in fp32 as well.

## Why is this bad?
cuTile multiplies float32 tiles in float32; it uses the tf32 tensor-core format only when the
operands are converted to `ct.tfloat32` explicitly. Triton's `tl.dot` converts float32 operands
to tf32 by default. A cuTile kernel and its Triton port (either direction) therefore produce
different numbers for the same fp32 inputs, by about tf32's rounding (2^-11 relative per
operand), which fails tight comparisons between the two. The fp32 product is the more accurate
one and the much slower one: on the H200 (the pair's kernels, 64x64x32 tiles, randn inputs) it
was within 1.7e-4 of an fp64 product at 4096^3 where tf32 was off by 0.11, and it took 25-29x
as long (31 ms vs 1.06 ms at 4096^3; 9x at 512x512x256). Neither result is wrong on its own:
the rule marks where a kernel's numbers and speed will differ from a Triton port, so it is
info and off by default.

## Example
```python
a = ct.astype(ct.load(A, index=(bid_m, k), shape=(TM, TK)), ct.float32)
b = ct.astype(ct.load(B, index=(k, bid_n), shape=(TK, TN)), ct.float32)
acc = ct.mma(a, b, acc)
```

## Use instead
```python
a = ct.astype(ct.load(A, index=(bid_m, k), shape=(TM, TK)), ct.tfloat32)
b = ct.astype(ct.load(B, index=(k, bid_n), shape=(TK, TN)), ct.tfloat32)
acc = ct.mma(a, b, acc)
```
(or keep float32 on purpose, and give the Triton side `input_precision="ieee"`).
"""
    references = f"""
- {SEED}, 'float32 → tf32 in Triton' and the 'Gotchas' row 'mma float32→tf32'.
- cuTile's `ct.mma` documentation (`cuda/tile/_stub.py`): float32 and tfloat32 are separate
  input types, and operands are not promoted.
- Accuracy and time of both kernels: `reference_kernels/evidence/runs/2026-12-01-h200-KL403-fp32-vs-tf32.json`.
"""

    def check(self, node, ctx):
        name = ctx.call_name(node)
        if name not in _PRODUCTS or tile_function_of(ctx, node) is None:
            return
        signature = cutile.SIGNATURES[name]
        operands = [signature_argument(node, signature, n) for n in ("x", "y")]
        dtypes = [tile_dtype(ctx, o) if o is not None else None for o in operands]
        if "float32" in dtypes and "tfloat32" not in dtypes and not _narrower_than_a_dot(ctx, node, operands):
            operand = operands[dtypes.index("float32")]
            yield Report(node, f"`{name.rsplit('.', 1)[-1]}` on float32 tile `{short(operand)}` multiplies in "
                               f"full fp32, where Triton's `tl.dot` uses tf32: convert the operands with "
                               f"`ct.astype(..., ct.tfloat32)` if the numbers must match a Triton port")
