"""KL314 tmem-alloc-invalid: a tensor-memory column count that is not a power of two of at least 32."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute_resources import tmem_columns
from kernelint.model.cute_static import cute_int
from kernelint.model.dsl.cute import TMEM_MAX_COLUMNS, TMEM_MIN_COLUMNS
from kernelint.rules import Report, Rule


def _next_power_of_two(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


class TmemAllocInvalid(Rule):
    code = "KL314"
    name = "tmem-alloc-invalid"
    family = "cute-resources"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "compile"
    summary = "`alloc_tmem(n)` with `n` not a power of two of at least 32: the kernel does not compile."
    node_types = (ast.Call,)
    doc = """
## What it does
Reports a tensor-memory allocation, `cute.arch.alloc_tmem(n, ptr)` or
`TmemAllocator(...).allocate(n)`, whose column count folds to a value of at most 512 that is
not a power of two or is below 32 (above 512 is KL310). The count is followed through
literals, module constants and `self.<attr>` set once by the kernel class; counts computed at
run time or by a helper are not reported, nor calls with an explicit `arch=`.

The catalog's second case for this rule, an allocation with no `dealloc_tmem` or relinquish on
some path of the kernel, is not implemented: it needs path analysis the model does not have yet.

## Why is this bad?
Tensor memory is handed out in power-of-two blocks of columns, 32 at least. The column count
of a Blackwell accumulator is often computed from the tile (`128 + 64` for an accumulator plus
scale factors), and a sum like that is not a valid allocation. CuTe DSL rejects it while tracing
(`num_columns must be between 32 and 512, and must be pow of 2`), so the kernel never compiles.

## Example
```python
ACC_COLS = 128
SFA_COLS = 64
cute.arch.alloc_tmem(ACC_COLS + SFA_COLS, tmem_holding_buf)
```

Evidence on sm_90. Tensor memory exists only on sm_100-class GPUs, so the pair is compiled for
`sm_100a` on the H200 (`cute.compile[cute.GPUArch("sm_100a")]`) and not run: the bad kernel's
trace fails with the error above (192 columns), the good one (256) compiles.

## Use instead
Round the allocation up to the next power of two:
```python
cute.arch.alloc_tmem(256, tmem_holding_buf)
```
"""
    references = (
        "CuTe DSL kernel skill, 'Tensor memory (SM100)'; `cutlass.cute.arch.alloc_tmem` "
        "(nvidia-cutlass-dsl 4.8.1) checks the count; cutlass issues on TMEM allocation hangs."
    )

    def check(self, node: ast.Call, ctx):
        columns = cute_int(ctx, tmem_columns(ctx, node))
        if columns is None or columns > TMEM_MAX_COLUMNS:
            return
        if columns >= TMEM_MIN_COLUMNS and columns & (columns - 1) == 0:
            return
        valid = min(max(_next_power_of_two(columns), TMEM_MIN_COLUMNS), TMEM_MAX_COLUMNS)
        yield Report(
            node,
            f"tensor-memory allocation of {columns} columns; allocations are powers of two of at "
            f"least {TMEM_MIN_COLUMNS} columns, so the kernel does not compile: allocate {valid}",
        )
