"""Triton memory-access rules: how kernels load their tiles."""
from __future__ import annotations

import ast

from kernelint.findings import Confidence, Severity
from kernelint.model import dataflow
from kernelint.rules import Report, Rule

_SEED = "cuTile→Triton conversion guide (seed 000)"


def _short(node: ast.AST, limit: int = 40) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _before_hopper(ctx) -> bool:
    """True when the configured ``target-arch`` has no TMA (below sm_90); no target is not."""
    return ctx.target_sm is not None and ctx.target_sm < 90


class RawTileLoadDynamicStrides(Rule):
    code = "KL201"
    name = "raw-2d-load-dynamic-strides"
    family = "triton-memory"
    dsl = "triton"
    severity = Severity.WARNING
    confidence = Confidence.MEDIUM
    evidence_class = "perf"
    summary = "2D tile loaded through raw pointers whose strides or base were loaded; use a tensor descriptor."
    node_types = (ast.Call,)
    doc = """
## What it does
Flags a `tl.load` of a 2D tile whose pointer is built from broadcast offsets
(`rows[:, None] * stride_m + cols[None, :] * stride_n`) when a stride or the base pointer was
itself read from memory with `tl.load`: the pointer-table pattern of grouped GEMMs, where each
group's pointers and strides live in device arrays.

It stays silent when the strides and base are kernel arguments (the tutorial GEMM: measured on
an H200 at 0.83-1.04x of a TMA version over 9 configurations, i.e. no slowdown), on block
pointers (`tl.make_block_ptr`), on descriptor loads (`tl.make_tensor_descriptor(...).load`), and
when the configured `target-arch` is older than sm_90 (no TMA there).

## Why is this bad?
Triton specializes integer kernel arguments that are divisible by 16, so with argument strides it
can prove the tile rows contiguous and aligned and emit wide, vectorized loads. A stride or
pointer loaded at run time carries no such facts: every element becomes a narrow load. A tensor
descriptor built from the same loaded values hands the address arithmetic to the TMA unit, which
copies the whole tile asynchronously whatever the strides are.

## Example
```python
a_ptr = tl.load(a_ptrs + g).to(tl.pointer_type(DTYPE))
lda = tl.load(lds + g)
a = tl.load(a_ptr + offs_m[:, None] * lda + offs_k[None, :], mask=mask, other=0.0)
```

## Use instead
```python
a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[lda, 1], block_shape=[BLOCK_M, BLOCK_K])
a = a_desc.load([pid_m * BLOCK_M, k])
```
In-kernel descriptors need `triton.set_allocator(...)` on the host, TMA needs sm_90 or newer,
and the row stride must be a multiple of 16 bytes with a unit inner stride.
"""
    references = f"""
- {_SEED}, 'Performance Gotchas — 10-50× Regression Risk', row 'Memory access (2D+ tiles)'
  (claims 5-20x for raw pointer loads in general).
- {_SEED}, 'TensorDescriptor Pattern (ct.load/ct.store → Triton TMA)'.
"""
    prior_evidence = """
fp16 GEMM with strides loaded by `tl.load` (pointer-table style), 128x128x64 tiles, 8 warps,
3 stages, on an H200 (triton 3.6.0): raw pointers 154 TFLOP/s vs an in-kernel TMA descriptor
474 TFLOP/s at 4096³ (3.1x); 158 vs 448 at 8192x8192x4096 (2.8x). With the strides passed as
kernel arguments the raw/TMA time ratio was 0.83-1.04 over 9 configurations, which is why
that case is not reported.
"""

    def check(self, node, ctx):
        if not dataflow.is_load(ctx, node) or ctx.kernel_of(node, "triton") is None or _before_hopper(ctx):
            return
        pointer = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "pointer"), None)
        tile = dataflow.tile_pointer(ctx, pointer) if pointer is not None else None
        if tile is None:
            return
        strides = tile.strides_from_memory(ctx)
        bases = tile.bases_from_memory(ctx)
        if strides:
            what = f"stride `{_short(strides[0])}` is"
        elif bases:
            what = f"base pointer `{_short(bases[0])}` is"
        else:
            return
        yield Report(
            node,
            f"2D tile load through raw pointers whose {what} loaded from memory: Triton cannot "
            "prove it contiguous or aligned and issues narrow loads; load the tile through "
            "`tl.make_tensor_descriptor(...)` (TMA) instead",
        )


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
Flags `tl.trans(x)` (or `x.T`) inside a loop that accumulates `tl.dot`, where `x` was loaded by
`tl.load` in that same iteration and the transposed tile feeds a `tl.dot`.

Info and off by default: on an H200 with triton 3.6 the transpose cost nothing measurable. The
claim was tried where it should bite most before demoting the rule: fp16 and bf16, square
shapes up to 8192x8192x4096 and long-K shapes (1024x1024x16384, 2048x2048x16384); the median
bad/good time was 1.01x over those 8 shapes (*Evidence*). The compiler folds the transpose into
the shared-memory layout of the `tl.dot` operand, so no work is repeated in the loop.

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
- {_SEED}, 'Triton Optimization Reference (cuTile → Triton)', section '2. Transpose: Pointer
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
        load = dataflow.load_of(ctx, operand)
        if not loops or load is None or loops[0] not in ctx.loops_of(load):
            return
        if (
            dataflow.accumulates_dot(ctx, loops[0])
            and self._feeds_dot(node, loops[0], ctx)
            and self._only_used_transposed(operand, loops[0], ctx)
        ):
            yield Report(
                node,
                f"`{_short(operand)}` is loaded and transposed on every iteration of a `tl.dot` "
                "loop; load it in the transposed layout instead (swap the strides of its pointer "
                "or block pointer)",
            )

    @staticmethod
    def _transposed(node, ctx):
        if ctx.is_call(node, "triton.language.trans") and len(node.args) == 1:
            return node.args[0]
        if isinstance(node, ast.Attribute) and node.attr == "T" and isinstance(node.ctx, ast.Load):
            return node.value
        return None

    @classmethod
    def _only_used_transposed(cls, operand, loop, ctx):
        """A tile also used untransposed (``tl.dot(k, tl.trans(k))``) must be loaded as it is."""
        if not isinstance(operand, ast.Name):
            return True
        for use in ast.walk(loop):
            if isinstance(use, ast.Name) and use.id == operand.id and isinstance(use.ctx, ast.Load):
                parent = ctx.parent(use)
                metadata = isinstance(parent, ast.Attribute) and parent.attr in ("dtype", "shape")
                if not metadata and cls._transposed(parent, ctx) is not use:
                    return False
        return True

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
