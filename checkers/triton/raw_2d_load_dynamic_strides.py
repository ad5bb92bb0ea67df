"""KL201 raw-2d-load-dynamic-strides: 2D tile loaded through raw pointers whose strides or base
were loaded; use a tensor descriptor."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Confidence, Severity
from kernelint.model.core import dataflow
from kernelint.model.core.calls import argument
from kernelint.rules import Report, Rule


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
    per_kernel = "triton"
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
- {SEED}, 'Performance Gotchas — 10-50× Regression Risk', row 'Memory access (2D+ tiles)'
  (claims 5-20x for raw pointer loads in general).
- {SEED}, 'TensorDescriptor Pattern (ct.load/ct.store → Triton TMA)'.
"""
    prior_evidence = """
fp16 GEMM with strides loaded by `tl.load` (pointer-table style), 128x128x64 tiles, 8 warps,
3 stages, on an H200 (triton 3.6.0): raw pointers 154 TFLOP/s vs an in-kernel TMA descriptor
474 TFLOP/s at 4096³ (3.1x); 158 vs 448 at 8192x8192x4096 (2.8x). With the strides passed as
kernel arguments the raw/TMA time ratio was 0.83-1.04 over 9 configurations, which is why
that case is not reported.
"""

    def check_kernel(self, kernel, ctx):
        if _before_hopper(ctx):
            return
        for call in ctx.calls_in(kernel.node):
            if dataflow.is_load(ctx, call):
                yield from self._raw_tile_load(call, ctx)

    def _raw_tile_load(self, node, ctx):
        pointer = argument(node, "pointer", 0)
        tile = dataflow.tile_pointer(ctx, pointer) if pointer is not None else None
        if tile is None:
            return
        strides = tile.strides_from_memory(ctx)
        bases = tile.bases_from_memory(ctx) if not strides else []
        if strides:
            what = f"stride `{short(strides[0])}` is"
        elif bases:
            what = f"base pointer `{short(bases[0])}` is"
        else:
            return
        yield Report(
            node,
            f"2D tile load through raw pointers whose {what} loaded from memory: Triton cannot "
            "prove it contiguous or aligned and issues narrow loads; load the tile through "
            "`tl.make_tensor_descriptor(...)` (TMA) instead",
        )

