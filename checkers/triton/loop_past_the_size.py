"""KL141 loop-past-the-size: a loop runs one iteration more than the blocks its size holds, and
its last iteration reads or writes a block past the tensor's end with no mask to stop it."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.index.carried import ITERATION
from kernelint.model.index.overrun import overruns
from kernelint.model.project import shapes
from kernelint.rules import Because, Report, Rule


class LoopPastTheSize(Rule):
    code = "KL141"
    name = "loop-past-the-size"
    family = "triton-pointers"
    dsl = "triton"
    # Reproduced on the H200 (numerics: every row sum wrong in 4 of 4 cases, N=256 and N=4096, multiples of
    # the block, included); no corpus finding (docs/precision.md).
    severity = Severity.ERROR
    default_enabled = True
    evidence_class = "numerics"
    summary = ("A loop runs one iteration more than the blocks the size holds "
               "(`range(tl.cdiv(K, BK) + 1)`, `range(N // BLOCK + 1)`) and its last iteration reads or "
               "writes past the end of the tensor with no mask or boundary check.")
    per_kernel = "triton"
    doc = """
## What it does
Flags a `tl.load`, `tl.store` or atomic inside a `for` loop, on a raw pointer or a block pointer
(stepped with `p += BLOCK` or `tl.advance` in the loop included), whose index along a dimension of
the host tensor passes that dimension's end on the loop's last iteration **even when every size
is a multiple of every block**, and stays inside once the loop runs one iteration fewer: the loop
bound counts one block too many (`range(0, tl.cdiv(K, BLOCK_K) + 1)`, `range(N // BLOCK + 1)`
without a mask). The index engine (`kernelint/model/index/overrun.py`) bounds the index over the
launched grid and the loop's iterations, with the host sizes that the grid and loops divide by a
block replaced by multiples of those blocks, so a partial last tile (KL136, KL137, KL140) is not
what it reports.

It stays silent when a mask bounds the index by the dimension's end (`range(N // BLOCK + 1)`
with `mask=offs < N` is the usual way to cover a tail), on dimensions in `boundary_check`, on
tensor descriptors, under an `if` or in a `while` loop of the kernel, on loops whose bounds are
loaded values or otherwise unread, and wherever the tensor's shape or a stride's dimension cannot
be read.

## Why is this bad?
The extra iteration reads a whole block past the end: data of the next row or the next tensor
goes into the sum (a silently wrong result), or the address leaves the allocation (an illegal
memory access). A store writes over whatever follows. No choice of sizes hides it.

## Example
```python
for k in range(0, tl.cdiv(K, BLOCK_K) + 1):
    acc += tl.load(x_ptr + row * stride + k * BLOCK_K + tl.arange(0, BLOCK_K))
```

## Use instead
```python
for k in range(0, tl.cdiv(K, BLOCK_K)):
    offs = k * BLOCK_K + tl.arange(0, BLOCK_K)
    acc += tl.load(x_ptr + row * stride + offs, mask=offs < K, other=0.0)
```
"""
    references = """
- issue 20 (out-of-bounds forms missed: loop bounds past the size, `range(N // B + 1)` with
  `tl.advance`).
"""

    def check_kernel(self, kernel, ctx):
        for found in overruns(ctx, kernel):
            if not found.cause.startswith(ITERATION) or found.loop is None:
                continue
            access = found.access
            verb = "reads" if "load" in access.kind else "writes"
            where = (f"the end of dimension {found.dim} ({shapes.render(found.extent)} long)" if found.rank > 1
                     else f"the end ({shapes.render(found.extent)} elements)")
            yield Report(
                access.node,
                f"`{short(found.loop.iter, 48)}` runs one iteration past the "
                f"size: on its last iteration `{short(access.node)}` {verb} up to {found.excess:,} elements past "
                f"{where} of `{found.argument}`, even when the sizes are multiples of the block; "
                f"loop over the blocks the size holds or mask the access",
                cause=f"{kernel.name}:{access.pointer}:{found.loop.lineno}",
                facts=(Because(f"launched at {found.where}", None),),
            )
