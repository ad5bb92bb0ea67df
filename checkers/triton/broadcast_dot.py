"""KL204 broadcast-dot: a shared 2D operand broadcast to a 3D batch for a batched `tl.dot`."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Confidence, Severity
from kernelint.model.core import dataflow
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl.triton import BROADCAST_TO, DOT, EXPAND_DIMS, SIGNATURES
from kernelint.model.triton.static_asserts import bounded_int
from kernelint.rules import Because, Report, Rule
from kernelint.model.core.walk import subtree

#: Measured on the H200: with both matrix dimensions of the broadcast tile at or below this, the
#: batched dot was as fast (32x32x32) or faster (16x16x16) than one 2D dot per problem.
_SMALL_TILE = 32
#: The smallest extent of a tensor-core (MMA) dot: a tile with a smaller M, N or K takes the FMA
#: path whether or not it is batched, so a 2D rewrite gains nothing.
_MMA_MIN_EXTENT = 16


class BroadcastDot(Rule):
    code = "KL204"
    name = "broadcast-dot"
    family = "triton-compute"
    dsl = "triton"
    severity = Severity.WARNING
    confidence = Confidence.MEDIUM
    evidence_class = "perf"
    summary = "A 2D tile broadcast to a 3D batch and multiplied with a batched `tl.dot`."
    node_types = (ast.Call,)
    calls = frozenset({BROADCAST_TO, ".broadcast_to"})
    doc = """
## What it does
Flags a tile copied along a new leading batch axis with `tl.broadcast_to`
(`tl.broadcast_to(w[None, :, :], (BATCH, M, K))`) that feeds an operand of a 3D (batched)
`tl.dot`: one shared matrix multiplied by a batch of matrices. Stays silent on 3D dots whose
operands are both real batched data, on 2D broadcasts (a row or column spread to a tile), and
when both matrix dimensions of the broadcast tile are known to be at most 32, where the batched
form measured as fast or faster.

## Why is this bad?
A 3D `tl.dot` does not lower to Hopper's warpgroup MMA (`wgmma`): Triton emits the older
`mma.sync` per batch entry, and the broadcast copy of the shared tile is materialised in
registers for every batch entry. With 64x64 tiles and a batch of 8 the kernel needed 255
registers and spilled 228 of them; with 128x128 tiles it ran 58x slower than one 2D `tl.dot` per
problem on an H200. The seed's "no tensor cores" is not quite right (`mma.sync` is a tensor-core
instruction), but the cost is real once tiles are 64 wide or more.

Measured (*Evidence*): median 1.68x over five shapes, from 0.53x (16x16x16 tiles: the batched
form was twice as fast) through 0.97x (32x32x32) and 1.68x (64x64x64, fp16 and bf16) to 57.6x
(128x64x128). The good kernel moved its inputs and outputs at about 85% of the H200's HBM
bandwidth at 64x64x64 (1.07 GB in 0.26 ms), so the comparison is not against a slow baseline.

## Example
```python
w = tl.load(w_ptr + offs_m[:, None] * K + offs_k[None, :])
w = tl.broadcast_to(w[None, :, :], (BATCH, M, K))
x = tl.load(x_ptr + offs_b[:, None, None] * K * N + offs_k[None, :, None] * N + offs_n[None, None, :])
y = tl.dot(w, x)
```

## Use instead
One problem per program (or fold the batch into N: `W @ [X_0 X_1 ...]`) with a 2D `tl.dot`:
```python
w = tl.load(w_ptr + offs_m[:, None] * K + offs_k[None, :])
x = tl.load(x_ptr + pid * K * N + offs_k[:, None] * N + offs_n[None, :])
y = tl.dot(w, x)
```
"""
    references = f"""
- {SEED}, 'Performance Gotchas' table, row 'broadcast_to + tl.dot' (claims 10-50x, the FFT
  case study), and the gotchas table row 'Batched matmul'.
"""

    def check(self, node, ctx):
        parts = _broadcast_parts(ctx, node)
        kernel = ctx.kernel_of(node, "triton")
        if parts is None or kernel is None or not self._batch_broadcast(ctx, kernel, *parts):
            return
        dot = self._dot_fed(node, ctx)
        if dot is not None:
            source, shape = parts
            yield Report(
                node,
                f"`{short(source)}` is broadcast to a 3D batch for the batched `tl.dot` on line "
                f"{dot.lineno}; a batched dot runs without warpgroup MMA and keeps a copy of the tile "
                "per batch entry: use one 2D `tl.dot` per problem (or fold the batch into N)",
                facts=(Because(f"broadcast to `({', '.join(short(e, 20) for e in shape)})`" if shape
                               else "a 2D tile given a leading batch axis", node),
                       Because(f"feeds the batched `tl.dot` on line {dot.lineno}", dot)),
            )

    @staticmethod
    def _dot_fed(broadcast, ctx):
        """The first ``tl.dot`` of the kernel with an operand computed from ``broadcast``."""
        kernel = ctx.kernel_of(broadcast, "triton")
        for call in subtree(kernel.node):
            if not ctx.is_call(call, DOT):
                continue
            for role in ("input", "other"):
                operand = signature_argument(call, SIGNATURES[DOT], role)
                if operand is not None and dataflow.reaches(
                    ctx, operand, lambda n: n is broadcast,
                    prune=lambda n: dataflow.is_load(ctx, n) or dataflow.is_dot(ctx, n),
                ) is not None:
                    return call
        return None

    @staticmethod
    def _batch_broadcast(ctx, kernel, source: ast.expr, shape: list[ast.expr] | None) -> bool:
        """A broadcast adding a leading batch axis to a 2D tile, not known small: each extent is
        read through literals, names and the kernel's ``tl.static_assert`` bounds; an extent
        below 16 leaves no tensor-core path for any rewrite, and a tile of at most 32x32 is
        cheap to copy."""
        rank3 = (shape is not None and len(shape) == 3) or _new_leading_axis(ctx, source)
        if not rank3:
            return False
        if shape is not None and len(shape) == 3:
            sizes = [bounded_int(ctx, e, kernel.node) for e in shape[1:]]
            if any(s is not None and s < _MMA_MIN_EXTENT for s in sizes):
                return False
            if all(s is not None and s <= _SMALL_TILE for s in sizes):
                return False
        return True


def _broadcast_parts(ctx, node: ast.AST) -> tuple[ast.expr, list[ast.expr] | None] | None:
    """(tile, shape entries) of ``tl.broadcast_to(x, shape)`` or of the tensor method
    ``x.broadcast_to(shape)`` / ``x.broadcast_to(*shape)``; None for any other call."""
    if not isinstance(node, ast.Call):
        return None
    if ctx.is_call(node, BROADCAST_TO):
        if not node.args:
            return None
        return node.args[0], _shape_elements(ctx, node.args[1] if len(node.args) > 1 else _keyword(node, "shape"))
    if (isinstance(node.func, ast.Attribute) and node.func.attr == "broadcast_to"
            and ctx.call_name(node) is None and (node.args or node.keywords)):
        if len(node.args) == 1:
            return node.func.value, _shape_elements(ctx, node.args[0])
        if len(node.args) > 1 and not any(isinstance(a, ast.Starred) for a in node.args):
            return node.func.value, list(node.args)
        return node.func.value, _shape_elements(ctx, _keyword(node, "shape"))
    return None


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _shape_elements(ctx, shape: ast.expr | None) -> list[ast.expr] | None:
    for value in ctx.values_of(shape) if shape is not None else ():
        if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
            return list(value.elts)
    return None


def _new_leading_axis(ctx, source: ast.expr) -> bool:
    """``x[None, :, :]`` or ``tl.expand_dims(x, 0)`` (through names): a 2D tile given a batch axis."""
    for value in ctx.values_of(source):
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Tuple):
            elts = value.slice.elts
            if len(elts) == 3 and isinstance(elts[0], ast.Constant) and elts[0].value is None:
                return all(isinstance(e, ast.Slice) for e in elts[1:])
        if ctx.is_call(value, EXPAND_DIMS) and len(value.args) == 2 and ctx.resolve_int(value.args[1]) == 0:
            return True
    return False
