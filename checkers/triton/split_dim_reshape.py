"""KL208 split-dim-reshape: a tensor reshaped with a size-2 axis to reach the two halves of a
dimension, and handed to a Triton kernel."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Confidence, Severity
from kernelint.rules import Report, Rule

_RESHAPES = frozenset({"reshape", "view"})


class SplitDimReshape(Rule):
    code = "KL208"
    name = "split-dim-reshape"
    family = "triton-host"
    dsl = "triton"
    severity = Severity.INFO
    confidence = Confidence.MEDIUM
    default_enabled = False
    evidence_class = "perf"
    summary = "A tensor reshaped to `(..., 2, d // 2)` to reach the halves of a dimension, passed to a kernel."
    node_types = (ast.Call,)
    doc = """
## What it does
Flags `x.reshape(..., 2, d // 2)` (or `.view`) whose result is passed to a Triton kernel launch,
directly or through a name: the kernel reaches the first and second half of the last dimension
(rotary embeddings, gated activations) through the stride of the extra size-2 axis.

Info and off by default: measured on the H200 (see *Evidence*), an in-place RoPE reaching the
second half through the view's stride against adding `head_dim // 2` to the offsets: 0.99x
(0.97-1.00x over 4 shapes; an earlier run gave 1.00x, 0.97-1.03x). The seed's 50-150% did not
reproduce.
Both kernels touch the same addresses: the view is free, and Triton specialises a stride of 64
as divisible by 16 just like the constant. The 50-150% the seed reports came with a head-major
layout (a program per position reading every head), which a reshape alone does not cause; the
rule is kept to record that measurement when it is made.

## Why is this bad?
The extra axis hides a simple offset behind a runtime stride and an extra kernel argument, and
tempts a layout where one program's data is spread across the tensor.

## Example
```python
halves = q.reshape(batch, seq_len, heads, 2, head_dim // 2)
rope_kernel[grid](halves, cos, sin, halves.stride(1), halves.stride(2), halves.stride(3), ...)
```

## Use instead
```python
rope_kernel[grid](q, cos, sin, q.stride(1), q.stride(2), HALF=head_dim // 2, ...)
# in the kernel: second = first + HALF
```
"""
    references = f"""
- {SEED}, 'MEMORY LAYOUT PATTERNS', 'Performance Killer #7: 5D Reshape vs Contiguous Access'
  (claims 50-150%), and the regression table row 'Memory layout'.
"""

    def check(self, node, ctx):
        if not (isinstance(node.func, ast.Attribute) and node.func.attr in _RESHAPES) or not _splits_in_halves(node):
            return
        if ctx.kernel_of(node) is not None:
            return
        launch = self._launch_receiving(node, ctx)
        if launch is not None:
            yield Report(
                node,
                f"`{short(node)}` splits a dimension into halves for `{short(launch.kernel_expr)}`; pass the "
                "tensor itself and offset the second half by `d // 2` in the kernel",
            )

    @staticmethod
    def _launch_receiving(value, ctx):
        """The Triton launch that receives ``value``, directly or through the name it is assigned to."""
        candidates = [value]
        statement = ctx.parent(value)
        if isinstance(statement, ast.Assign) and statement.value is value and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name):
            definition = next((d for d in ctx.definitions(statement.targets[0].id, statement) if d.node is statement), None)
            candidates += ctx.uses_of(definition) if definition is not None else []
        for launch in ctx.launches_of("triton"):
            if any(arg is c for arg in (*launch.args, *launch.keywords.values()) for c in candidates):
                return launch
        return None


def _splits_in_halves(call: ast.Call) -> bool:
    """``(..., 2, expr // 2)`` among the shape arguments (spread or as one tuple)."""
    dims = list(call.args)
    if len(dims) == 1 and isinstance(dims[0], (ast.Tuple, ast.List)):
        dims = list(dims[0].elts)
    for first, second in zip(dims, dims[1:]):
        if (isinstance(first, ast.Constant) and first.value == 2 and isinstance(second, ast.BinOp)
                and isinstance(second.op, ast.FloorDiv) and isinstance(second.right, ast.Constant)
                and second.right.value == 2):
            return True
    return False
