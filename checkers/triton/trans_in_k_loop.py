"""KL205 trans-in-k-loop: `tl.trans` of a tile loaded in the same loop that accumulates `tl.dot`."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Confidence, Severity
from kernelint.model.core import dataflow
from kernelint.model.dsl import triton
from kernelint.model.core.reaching import reaching_definitions
from kernelint.rules import Report, Rule


class TransInKLoop(Rule):
    code = "KL205"
    name = "trans-in-k-loop"
    family = "triton-memory"
    dsl = "triton"
    severity = Severity.INFO
    confidence = Confidence.MEDIUM
    default_enabled = False
    evidence_class = "perf"
    summary = "`tl.trans` of a tile loaded in the same loop that accumulates `tl.dot`."
    node_types = (ast.Call, ast.Attribute)
    doc = """
## What it does
Flags `tl.trans(x)` (also `x.T`, `x.trans()`, `tl.permute(x, (1, 0))`, written on its own
line or inline inside the `tl.dot(...)` call) inside a loop that accumulates `tl.dot`, where `x` was loaded by
`tl.load` in that same iteration and the transposed tile feeds a `tl.dot`.

Info and off by default: on an H200 with triton 3.6 the transpose cost nothing measurable. The
claim was tried where it should bite most before demoting the rule: fp16 and bf16, square
shapes up to 8192x8192x4096 and long-K shapes (1024x1024x16384, 2048x2048x16384); the median
bad/good time was 1.01x over those 8 shapes (*Evidence*). The compiler folds the transpose into
the shared-memory layout of the `tl.dot` operand, so no work is repeated in the loop. Its
corpus precision is 0% useful: all 43 findings over the corpus are the pattern, none worth a
change (issue 21), far below the 90% a default-on rule needs.

## Why is this bad?
The transpose is redone on every iteration. When the operand is read through raw pointers, the
same tile can be loaded directly in the layout `tl.dot` wants by swapping the strides of the
two offset vectors, so the loop does no layout change at all. Whether the compiler already
folds the transpose into the shared-memory layout depends on the Triton version and target.

## Example
```python
for k in range(0, K, BLOCK_K):
    b = tl.load(b_ptr + offs_n[:, None] * stride_bn + (k + offs_k)[None, :] * stride_bk)
    acc += tl.dot(a, tl.trans(b))
```

## Use instead
```python
for k in range(0, K, BLOCK_K):
    b = tl.load(b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn)
    acc += tl.dot(a, b)
```
"""
    references = f"""
- {SEED}, 'Triton Optimization Reference (cuTile → Triton)', section '2. Transpose: Pointer
  Arithmetic vs In-Loop Transpose' (claims about 5-15%).
"""
    prior_evidence = """
B stored transposed, 128x128x64 tiles, H200, triton 3.6.0: `tl.trans` in the loop 540.7 vs
pointer layout 556.7 TFLOP/s at 4096³ (1.03x); 511.6 vs 502.1 at 8192x8192x4096 (0.98x).
The claimed 5-15% did not reproduce.
"""

    def check(self, node, ctx):
        operand = self._transposed(node, ctx)
        if operand is None or ctx.kernel_of(node, "triton") is None:
            return
        loops = ctx.loops_of(node)
        load = self._loaded_tile(operand, ctx)
        if not loops or load is None or loops[0] not in ctx.loops_of(load):
            return
        if (
            dataflow.accumulates_dot(ctx, loops[0])
            and self._feeds_dot(node, loops[0], ctx)
            and self._only_used_transposed(operand, loops[0], ctx)
        ):
            yield Report(
                node,
                f"`{short(operand)}` is loaded and transposed on every iteration of a `tl.dot` "
                "loop; load it in the transposed layout instead (swap the strides of its pointer "
                "or block pointer)",
            )

    @staticmethod
    def _transposed(node, ctx):
        """The tile a 2D transpose reads: ``tl.trans(x)``, ``tl.trans(x, 1, 0)``,
        ``tl.permute(x, (1, 0))``, ``x.trans()``, ``x.permute(1, 0)`` or ``x.T``."""
        if isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
            return node.value
        if not isinstance(node, ast.Call):
            return None
        name = ctx.call_name(node)
        if name in (triton.TRANS, triton.PERMUTE) and node.args:
            operand, dims = node.args[0], node.args[1:]
        elif name is None and isinstance(node.func, ast.Attribute) and node.func.attr in ("trans", "permute"):
            operand, dims = node.func.value, node.args
            name = triton.TRANS if node.func.attr == "trans" else triton.PERMUTE
        else:
            return None
        if len(dims) == 1 and isinstance(dims[0], (ast.Tuple, ast.List)):
            dims = dims[0].elts
        if not dims and name == triton.TRANS:
            return operand
        return operand if [ctx.resolve_int(d) for d in dims] == [1, 0] else None

    @classmethod
    def _only_used_transposed(cls, operand, loop, ctx):
        """A tile also used untransposed (``tl.dot(k, tl.trans(k))``) must be loaded as it is."""
        if not isinstance(operand, ast.Name):
            return True
        for use in ast.walk(loop):
            if isinstance(use, ast.Name) and use.id == operand.id and isinstance(use.ctx, ast.Load):
                if cls._reads_the_transpose(use, ctx):
                    continue  # `a = tl.trans(a)` on its own line: this `a` is the transposed tile
                parent = ctx.parent(use)
                metadata = isinstance(parent, ast.Attribute) and parent.attr in ("dtype", "shape")
                method = ctx.parent(parent) if isinstance(parent, ast.Attribute) and parent.attr in ("trans", "permute") else None
                if not metadata and cls._transposed(parent, ctx) is not use and (
                    method is None or cls._transposed(method, ctx) is not use
                ):
                    return False
        return True

    @classmethod
    def _loaded_tile(cls, operand, ctx):
        """The ``tl.load`` the transposed tile is: through its one binding, or, when the name is
        also rebound to its own transpose (``a = tl.load(...)``; ``a = tl.trans(a)``), through
        the one other binding that reaches the transpose."""
        load = dataflow.load_of(ctx, operand)
        if load is not None or not isinstance(operand, ast.Name):
            return load
        others = [d for d in reaching_definitions(ctx, operand)
                  if not (d.kind == "assign" and d.value is not None and cls._transposed(d.value, ctx) is not None)]
        if len(others) == 1 and others[0].kind == "assign" and others[0].value is not None:
            return dataflow.load_of(ctx, others[0].value)
        return None

    @classmethod
    def _reads_the_transpose(cls, use, ctx) -> bool:
        """Every binding that reaches ``use`` rebinds the name to its own transpose (the seed's
        ``a = tl.trans(a)`` before ``tl.dot(a, b, acc)``)."""
        definitions = reaching_definitions(ctx, use)
        return bool(definitions) and all(
            d.kind == "assign" and d.value is not None and cls._transposed(d.value, ctx) is not None
            for d in definitions)

    @staticmethod
    def _feeds_dot(node, loop, ctx):
        """The transposed tile is a ``tl.dot`` operand, directly or through the name it is bound to."""
        if any(dataflow.is_dot(ctx, a) for a in ctx.ancestors(node)):
            return True
        assign = ctx.parent(node)
        targets = assign.targets if isinstance(assign, ast.Assign) else []
        if len(targets) != 1 or not isinstance(targets[0], ast.Name):
            return False
        name = targets[0].id
        return any(
            dataflow.is_dot(ctx, call) and any(
                isinstance(n, ast.Name) and n.id == name for arg in call.args for n in ast.walk(arg)
            )
            for call in ast.walk(loop)
        )

