"""KL309 setmaxregister-not-multiple-of-8: a register count `setmaxnreg` cannot take."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.core.calls import signature_argument
from kernelint.model.cute.static import cute_int
from kernelint.model.dsl.cute import (
    SETMAXREGISTER,
    SETMAXREGISTER_MULTIPLE,
    SETMAXREGISTER_RANGE,
    SIGNATURES,
)
from kernelint.rules import Report, Rule


class SetmaxregisterNotMultipleOf8(Rule):
    code = "KL309"
    name = "setmaxregister-not-multiple-of-8"
    family = "cute-resources"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "compile"
    summary = "`setmaxregister_increase/decrease(n)` with `n` not a multiple of 8 in 24..256: the kernel does not compile."
    node_types = (ast.Call,)
    calls = SETMAXREGISTER
    doc = """
## What it does
Reports `cute.arch.setmaxregister_increase(n)` and `setmaxregister_decrease(n)` (and their
deprecated aliases `warpgroup_reg_alloc` / `warpgroup_reg_dealloc`) when `n` folds to an integer
that is not a multiple of 8 or lies outside 24..256. The count is followed through module
constants, `cutlass.Int32(...)` and the attributes a kernel class sets on `self` in `__init__`
(`self.mma_register_requirement = 232`), which is how warp-specialised kernels write it.

## Why is this bad?
The instruction behind these calls, PTX `setmaxnreg`, moves registers between the warps of a
warpgroup and the CTA's pool in blocks of 8 per thread. A count that is not a multiple of 8 (or
is below 24 or above 256) is not a valid operand, and the kernel fails to compile. The count is
often derived by hand (`65536 // threads`, a budget minus a margin), which is where an odd
value slips in.

## Example
```python
class Gemm:
    def __init__(self):
        self.mma_regs = 236
    ...
        if warp_group_idx > 0:
            cute.arch.setmaxregister_increase(self.mma_regs)
```

## Use instead
```python
        self.mma_regs = 232
```
"""
    references = (
        "CuTe DSL kernel skill, 'Tensor cores' (rebalance with `setmaxregister_decrease` / "
        "`setmaxregister_increase`, multiples of 8); PTX ISA, `setmaxnreg`."
    )

    def check(self, node: ast.Call, ctx):
        qualname = ctx.call_name(node)
        if qualname not in SETMAXREGISTER:
            return
        count = cute_int(ctx, signature_argument(node, SIGNATURES[qualname], "reg_count"))
        low, high = SETMAXREGISTER_RANGE
        if count is None or (count % SETMAXREGISTER_MULTIPLE == 0 and low <= count <= high):
            return
        fixed = min(max(count - count % SETMAXREGISTER_MULTIPLE, low), high)
        yield Report(
            node,
            f"register count {count} is not a multiple of {SETMAXREGISTER_MULTIPLE} in "
            f"{low}..{high}; `setmaxnreg` rejects it (nearest valid count: {fixed})",
        )
