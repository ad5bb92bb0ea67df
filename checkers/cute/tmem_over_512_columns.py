"""KL310 tmem-over-512-columns: a tensor-memory allocation larger than the SM has."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.resources import TMEM_COLUMNS_CALLS, tmem_columns
from kernelint.model.cute.static import cute_int
from kernelint.model.dsl.cute import TMEM_MAX_COLUMNS
from kernelint.rules import Report, Rule


class TmemOver512Columns(Rule):
    code = "KL310"
    name = "tmem-over-512-columns"
    family = "cute-resources"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "compile"
    summary = "`alloc_tmem(n)` with `n` above 512: tensor memory has 512 columns, the kernel does not compile."
    node_types = (ast.Call,)
    calls = TMEM_COLUMNS_CALLS
    doc = """
## What it does
Reports a tensor-memory allocation, `cute.arch.alloc_tmem(n, ptr)` or
`TmemAllocator(...).allocate(n)`, whose column count folds to more than 512: a literal, a
module constant, or a `self.<attr>` the kernel class sets to one value. Counts computed at run
time or by a helper (`get_num_tmem_alloc_cols(...)`) are not reported. An explicit `arch=`
argument (sm_107 allows exclusive allocations above 512) turns the check off for that call.

## Why is this bad?
Blackwell's tensor memory has 512 columns (of 128 lanes × 32 bits) per SM, shared by the
CTAs resident on it. An allocation cannot be larger: CuTe DSL rejects the count while tracing
the kernel (`num_columns must be between 32 and 512 ...`), so the kernel never compiles. The
count usually grows from a tile configuration (two accumulator stages of a 256-wide tile, plus
scale factors) that no longer fits.

## Example
```python
ACC_STAGES = 2
TMEM_COLS = 256 * ACC_STAGES * 2
cute.arch.alloc_tmem(TMEM_COLS, tmem_holding_buf)
```

Evidence on sm_90. Tensor memory exists only on sm_100-class GPUs, so the pair is compiled for
`sm_100a` on the H200 (`cute.compile[cute.GPUArch("sm_100a")]`) and not run: the bad kernel's
trace fails with the error above, the good one compiles. Nothing on the H200 says what a
1024-column allocation would do at run time, and nothing needs to: it never compiles.

## Use instead
Shrink the tile or the number of accumulator stages so the columns fit in 512:
```python
TMEM_COLS = 256 * ACC_STAGES
cute.arch.alloc_tmem(TMEM_COLS, tmem_holding_buf)
```
"""
    references = (
        "CuTe DSL kernel skill, 'Tensor memory (SM100)' (`alloc_tmem` columns ≤ 512); "
        "`cutlass.cute.arch.alloc_tmem` (nvidia-cutlass-dsl 4.8.1) checks the count."
    )

    def check(self, node: ast.Call, ctx):
        columns = cute_int(ctx, tmem_columns(ctx, node))
        if columns is None or columns <= TMEM_MAX_COLUMNS:
            return
        yield Report(
            node,
            f"tensor-memory allocation of {columns} columns; an SM has {TMEM_MAX_COLUMNS}, so the "
            "kernel does not compile: use fewer accumulator stages or a smaller tile",
        )
