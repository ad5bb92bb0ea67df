"""KL113 arange-not-power-of-two: `tl.arange(start, end)` whose length is not a power of two does
not compile."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Severity
from kernelint.model.triton import backends, tiles
from kernelint.model.dsl import triton
from kernelint.rules import Report, Rule


def _power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class ArangeNotPowerOfTwo(Rule):
    code = "KL113"
    name = "arange-not-power-of-two"
    family = "triton-shapes"
    dsl = "triton"
    severity = Severity.ERROR
    default_enabled = False
    evidence_class = "compile"
    summary = "`tl.arange(start, end)` whose length is not a power of two does not compile."
    wants_finish = True
    doc = """
## What it does
Flags `tl.arange(start, end)` in a Triton kernel when `end - start` is known and is not a power
of two: fixed in the kernel (`tl.arange(0, 96)`, a module constant, `D: tl.constexpr = 96`), or
set by a launch in the same file (`kernel[grid](..., HEAD_DIM=96)`, or a constexpr default).
A size fixed by a launch is reported at the launch argument that sets it.

It stays silent when the length is not known in the file: a constexpr computed at run time
(`BLOCK=triton.next_power_of_2(n)`, `BLOCK=x.shape[1]`) or chosen by `@triton.autotune`; and in
code written for other Triton backends (Ascend NPU, Cambricon MLU forks), which compile other
lengths.

Off by default: it reproduced on the H200; its one finding on the 13 repositories judged for
precision was Ascend-only code (now skipped), so its precision is not measured yet.

## Why is this bad?
Every tensor in a Triton kernel has a power-of-two number of elements along each axis; the
compiler refuses the kernel with `arange's range must be a power of 2` before anything runs.
Real sizes that are not powers of two (head dimension 96, 80 columns) need a padded block and a
mask.

## Example
```python
@triton.jit
def rows_kernel(x_ptr, y_ptr, D: tl.constexpr):
    cols = tl.arange(0, D)
    ...

rows_kernel[(n,)](x, y, D=96)
```

## Use instead
```python
@triton.jit
def rows_kernel(x_ptr, y_ptr, D: tl.constexpr, BLOCK_D: tl.constexpr):
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    ...

rows_kernel[(n,)](x, y, D=96, BLOCK_D=triton.next_power_of_2(96))
```
"""
    references = f"""
- {SEED}, 'Other Common Triton Runtime Errors', '`tl.dot` shape error' (tile sizes must be
  powers of 2), and the worked softmax example ('BLOCK_SIZE must be power of 2 for Triton').
- Triton source: `triton/language/semantic.py`, `arange` ("arange's range must be a power of 2").
"""

    def finish(self, ctx):
        if backends.foreign_backend(ctx):
            return
        reported: set[int] = set()
        for node in ctx.nodes(ast.Call):
            if not ctx.is_call(node, triton.ARANGE) or ctx.kernel_of(node, "triton") is None:
                continue
            for size in tiles.arange_length(ctx, node):
                if _power_of_two(size.value) or size.value <= 0 or id(size.site) in reported:
                    continue
                reported.add(id(size.site))
                if size.site is node:
                    yield Report(node, f"`{short(node)}` spans {size.value} elements, not a power of two: "
                                       f"the kernel does not compile; pad to "
                                       f"{1 << (size.value - 1).bit_length()} and mask")
                else:
                    yield Report(size.site, f"this value makes `{short(node)}` (line {node.lineno}) span "
                                            f"{size.value} elements, not a power of two: the kernel does not "
                                            f"compile; pass a padded power of two and mask")
