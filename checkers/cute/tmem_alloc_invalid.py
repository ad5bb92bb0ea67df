"""KL314 tmem-alloc-invalid: a tensor-memory column count that is not a power of two of at least 32."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.resources import (
    TMEM_ALLOCATION_CALLS,
    TMEM_COLUMNS_CALLS,
    frees_tmem,
    kernel_entries_reaching,
    tmem_allocation_handle,
    tmem_columns,
)
from kernelint.model.cute.static import cute_int
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
    other_severities = (Severity.INFO,)
    evidence_class = "compile"
    summary = "`alloc_tmem(n)` with `n` not a power of two of at least 32 (the kernel does not compile), or tensor memory never freed."
    node_types = (ast.Call,)
    calls = TMEM_ALLOCATION_CALLS | TMEM_COLUMNS_CALLS
    doc = """
## What it does
Reports a tensor-memory allocation, `cute.arch.alloc_tmem(n, ptr)` or
`TmemAllocator(...).allocate(n)`, whose column count folds to a value of at most 512 that is
not a power of two or is below 32 (above 512 is KL310). The count is followed through
literals, module constants and `self.<attr>` set once by the kernel class; counts computed at
run time or by a helper are not reported, nor calls with an explicit `arch=`.

Info-level case: tensor memory allocated (`alloc_tmem`, the experimental `tcgen05_alloc`,
`TmemAllocator.allocate` / `.reserve`) by a kernel that frees none: no `dealloc_tmem`,
`tcgen05_dealloc` or allocator `.free(...)` in the `@cute.kernel` function that reaches the
allocation (directly or through helpers of the file, three calls up) nor in any helper of the
file it calls. Relinquishing the allocation permit does not count: it frees no columns. Silent
when no kernel of the file reaches the allocation (a role class whose kernel is elsewhere) or
when the holder or allocator is passed to a function kernelint cannot follow (another module's
epilogue may free it). This is existence, not paths: a free on one branch covers the others.

The missing free is reported at info whatever the rule's severity: it has not been measured.
Tensor memory exists only on sm_100-class GPUs; a copy of the good pair without its
relinquish and dealloc compiles for `sm_100a` with nvidia-cutlass-dsl 4.8.1 (its PTX has the
`tcgen05.alloc` and no `tcgen05.dealloc`; nothing checks at compile time), and the hang it
would cause (the next CTA on the SM waits for columns forever) needs an sm_100 GPU to run:
not runnable on sm_90, so not shown.

## Why is this bad?
Tensor memory is handed out in power-of-two blocks of columns, 32 at least. The column count
of a Blackwell accumulator is often computed from the tile (`128 + 64` for an accumulator plus
scale factors), and a sum like that is not a valid allocation. CuTe DSL rejects it while tracing
(`num_columns must be between 32 and 512, and must be pow of 2`), so the kernel never compiles.

An SM has 512 columns, shared by the CTAs resident on it. Columns a CTA allocates stay
allocated until it deallocates them; a CTA that exits without freeing leaves them taken, and
the next CTA scheduled on that SM blocks in its `tcgen05.alloc` waiting for columns that never
come back: a grid with more CTAs than fit on the GPU at once can hang.

## Example
```python
ACC_COLS = 128
SFA_COLS = 64
cute.arch.alloc_tmem(ACC_COLS + SFA_COLS, tmem_holding_buf)
```

Evidence on sm_90. Tensor memory exists only on sm_100-class GPUs, so the pair is compiled for
`sm_100a` on the H200 (`cute.compile[cute.GPUArch("sm_100a")]`) and not run: the bad kernel's
trace fails with the error above (192 columns), the good one (256) compiles.

The info case: allocated, permit relinquished, never freed.
```python
if warp_idx == 0:
    cute.arch.alloc_tmem(256, tmem_holding_buf)
...
if warp_idx == 0:
    cute.arch.relinquish_tmem_alloc_permit()
```

## Use instead
Round the allocation up to the next power of two:
```python
cute.arch.alloc_tmem(256, tmem_holding_buf)
```
and free it before the kernel exits, from the warp that allocated it:
```python
if warp_idx == 0:
    cute.arch.relinquish_tmem_alloc_permit()
    cute.arch.dealloc_tmem(tmem_ptr, 256)
```
"""
    references = (
        "CuTe DSL kernel skill, 'Tensor memory (SM100)'; `cutlass.cute.arch.alloc_tmem` "
        "(nvidia-cutlass-dsl 4.8.1) checks the count; cutlass issues on TMEM allocation hangs."
    )

    def check(self, node: ast.Call, ctx):
        yield from self._never_freed(node, ctx)
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

    def _never_freed(self, node: ast.Call, ctx):
        """The allocation's kernel (the ``@cute.kernel`` entries that reach it through helpers of
        the file) frees no tensor memory anywhere: no ``dealloc_tmem``/``tcgen05_dealloc``/
        ``.free(...)``, itself or in a helper of the file it calls. Silent when the allocation
        is handed to code outside the file, or no kernel of the file reaches it."""
        handle = tmem_allocation_handle(ctx, node)
        function = ctx.function_of(node)
        if handle is None or function is None:
            return
        entries = kernel_entries_reaching(ctx, function)
        if not entries or any(_frees_or_hands_over(ctx, entry, handle) for entry in entries):
            return
        yield Report(
            node,
            "tensor memory allocated but never freed in this kernel (no `dealloc_tmem` or "
            "allocator `.free`; relinquishing the permit frees nothing): later CTAs on the SM "
            "wait for the columns forever; free them before the kernel exits",
            severity=Severity.INFO,
        )


def _root_name(expr: ast.expr) -> str | None:
    while isinstance(expr, (ast.Attribute, ast.Subscript, ast.Call)):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _frees_or_hands_over(ctx, entry: ast.AST, handle: ast.expr) -> bool:
    """``entry`` frees tensor memory (itself or through helpers of the file), or passes the
    allocation's holder or allocator to a call kernelint cannot follow."""
    owner = _root_name(handle) if isinstance(handle, ast.expr) and not isinstance(handle, ast.Call) else None
    for call in (c for c in ast.walk(entry) if isinstance(c, ast.Call)):
        if ctx.call_or_its_helpers(call, lambda c: frees_tmem(ctx, c), 3):
            return True
        if owner is None or ctx.local_functions_called(call) or (ctx.call_name(call) or "").startswith("cutlass."):
            continue
        if any(_root_name(a) == owner for a in (*call.args, *(k.value for k in call.keywords))):
            return True
    return False
