"""KL112 dot-block-too-small: `tl.dot` with an inner (K) tile dimension below Triton's minimum
does not compile."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Severity
from kernelint.model.triton import backends, tiles
from kernelint.model.core.calls import signature_argument
from kernelint.model.core.dataflow import COLS, ROWS
from kernelint.model.dsl import triton
from kernelint.model.triton.dtypes import Precision, precision_of
from kernelint.rules import Report, Rule

#: Smallest K Triton's NVIDIA backend accepts for 16-bit operands (8-bit ones need 32).
_MIN_K_HALF = 16
#: Smallest K it accepts for any operand type but fp64 (fp32/tf32 operands in recent versions).
_MIN_K_ANY = 8


class DotBlockTooSmall(Rule):
    code = "KL112"
    name = "dot-block-too-small"
    family = "triton-shapes"
    dsl = "triton"
    severity = Severity.ERROR
    default_enabled = False
    evidence_class = "compile"
    summary = "`tl.dot` with an inner (K) tile dimension below Triton's minimum does not compile."
    wants_finish = True
    doc = """
## What it does
Flags `tl.dot(a, b)` in a Triton kernel when the shared (K) dimension of its operand tiles is
known and below what the compiler accepts: below 16 when an operand is a 16-bit value or is read
from memory without a conversion (half-precision tensors are the usual case), below 8 in every
case. The K size is read from the `tl.arange` that spans the operand's K axis
(`offs_k[None, :]` in `a`, `offs_k[:, None]` in `b`) or from the `block_shape` of a block
pointer, fixed in the kernel or by a launch in the same file (then the launch argument is
reported).

Small M and N are not reported: Triton's NVIDIA backend pads them, and on the H200 (triton
3.6.0) `tl.dot` compiled and matched for M = 1, N = 1 and 8x8 tiles with K = 16. K = 8 failed
there for fp16, bf16 and fp32 alike (newer Triton sources accept K = 8 for fp32, which is why
fp32 operands are reported only below 8). Code for other Triton backends (Ascend, Cambricon,
Kunlunxin forks) is not checked: their compilers set their own limits.

Off by default: it reproduced on the H200, but it had no findings on the 13 repositories judged
for precision, so its precision is not measured yet.

## Why is this bad?
Tensor-core instructions multiply fixed K slices: 16 elements for fp16/bf16, 32 for 8-bit types.
Triton checks the operand shapes before it generates code and stops with `Input shapes should
have M >= 1, N >= 1 and K >= 16`; no kernel is built.

## Example
```python
offs_k = tl.arange(0, BLOCK_K)
a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :])
b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :])
acc += tl.dot(a, b)
...
matmul_kernel[grid](a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=8)
```

## Use instead
```python
matmul_kernel[grid](a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=16)
```
"""
    references = f"""
- {SEED}, 'Other Common Triton Runtime Errors', '`tl.dot` shape error' (claims M, N and K must
  each be at least 16; only K is enforced).
- Triton source: `triton/backends/nvidia/compiler.py`, `min_dot_size`; `triton/language/semantic.py`,
  `dot` ("Input shapes should have M >= ..., N >= ... and K >= ...").
"""

    def finish(self, ctx):
        if backends.foreign_backend(ctx):
            return
        reported: set[int] = set()
        for node in ctx.nodes(ast.Call):
            if not ctx.is_call(node, triton.DOT) or ctx.kernel_of(node, "triton") is None:
                continue
            signature = triton.SIGNATURES[triton.DOT]
            a = signature_argument(node, signature, "input")
            b = signature_argument(node, signature, "other")
            if a is None or b is None:
                continue
            precisions = {precision_of(ctx, a), precision_of(ctx, b)}
            half = bool(precisions & {Precision.LOW, Precision.LOADED}) and Precision.WIDE not in precisions
            minimum = _MIN_K_HALF if half else _MIN_K_ANY
            for size in [*tiles.operand_extent(ctx, a, COLS), *tiles.operand_extent(ctx, b, ROWS)]:
                if size.value >= minimum or size.value <= 0 or id(size.site) in reported:
                    continue
                reported.add(id(size.site))
                # A size fixed in the kernel is reported at the dot, one set by a launch at its argument.
                where = node if ctx.is_call(size.site, triton.ARANGE, triton.MAKE_BLOCK_PTR) else size.site
                yield Report(where, f"`tl.dot` (line {node.lineno}) multiplies tiles whose K dimension is "
                                    f"{size.value}: Triton needs K >= {minimum} for these operands and "
                                    f"does not compile it; use a K block of at least {minimum}")
                break
