"""KL140 tile-axis-unmasked: a 2D tile masked on one axis only, where the other axis's index
passes its dimension under a `cdiv` grid."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.index.carried import carried_index
from kernelint.model.index.axes import partially_masked
from kernelint.model.project import shapes
from kernelint.rules import Because, Report, Rule


class TileAxisUnmasked(Rule):
    code = "KL140"
    name = "tile-axis-unmasked"
    family = "triton-pointers"
    dsl = "triton"
    # Reproduced on the H200 (numerics: 1,015,808 of 34,635,776 buffer elements written past the columns at
    # M=8192, N=4100; N a multiple of the block is right); no corpus finding (docs/precision.md).
    severity = Severity.ERROR
    default_enabled = True
    evidence_class = "numerics"
    summary = ("A 2D tile is masked on one axis only: under a `cdiv(N, BLOCK_N)` grid the other axis's "
               "last block passes the tensor's last column (or row) and reads or writes the next row's "
               "elements or past the end.")
    per_kernel = "triton"
    doc = """
## What it does
Flags a masked `tl.load`, `tl.store` or atomic on a 2D tile (`offs_m[:, None] * stride_m +
offs_n[None, :]`) whose mask bounds one dimension of the tensor (`offs_m[:, None] < M`) and not
another, when the program model shows that the other dimension's index passes its extent under a
launch the project makes: the grid is `cdiv(N, BLOCK_N)` programs along that axis, the tensor
has `N` columns, and nothing makes `N` a multiple of `BLOCK_N`. The index engine
(`kernelint/model/index/axes.py`) splits the address into one index per dimension of the host
tensor (by the stride each term carries: `x.stride(0)` passed for `stride_xm`, or a size equal
to a contiguous stride) and bounds each over the launched grid and the kernel's loops, pointers
stepped in a loop included (`a_ptrs += BLOCK_K`): a K loop whose loads mask the rows and not the
K columns is reported when nothing makes `K` a multiple of `BLOCK_K`.

It stays silent when the mask bounds every dimension the grid can pass, on an index wrapped with
`% N`, on accesses under an `if` or in a `while` loop of the kernel (`if EVEN_N:` variants), on
launches whose function tests a size with `%` (`assert N % 64 == 0`) or kernels that
`tl.static_assert` one, on strides taken from another tensor than the one addressed, and wherever
the grid, a stride's dimension or the tensor's shape cannot be read. A tile with no mask at all
is KL136's.

## Why is this bad?
The lanes of the last column block past `N - 1` address `row * stride_m + N + j`: the first
elements of the next row (wrong values loaded, another row overwritten by a store) and, on the
last row, memory past the tensor. The mask on rows makes the code look guarded; every test with
`N` a multiple of the block passes.

## Example
```python
offs_m = pid_m * BM + tl.arange(0, BM)
offs_n = pid_n * BN + tl.arange(0, BN)
mask = offs_m[:, None] < M
tl.store(out_ptr + offs_m[:, None] * stride_om + offs_n[None, :], y, mask=mask)
```

## Use instead
```python
mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
tl.store(out_ptr + offs_m[:, None] * stride_om + offs_n[None, :], y, mask=mask)
```
"""
    references = """
- issue 20 (out-of-bounds forms missed: a mask on one axis of a 2D tile only).
"""

    def check_kernel(self, kernel, ctx):
        found_all = partially_masked(ctx, kernel)
        if not found_all:
            return
        symbols = carried_index(ctx, kernel).symbols
        for found in found_all:
            access, past = found.access, found.past
            verb = "reads" if access.kind == "load" else "writes"
            covered = " and ".join(past.name(a) for a in past.covered)
            name = past.name(past.axis)
            extent = shapes.render(past.extent)
            when = (f"when {extent} is not a multiple of {found.block}" if found.block is not None
                    else "for the last block")
            yield Report(
                access.node,
                f"the mask of `{short(access.node)}` bounds the {covered} index but not the {name} "
                f"index `{symbols.render(past.index)}`: the last block {verb} up to {past.excess:,} "
                f"{name}s past the {extent} {name}s of `{found.argument}` {when}; "
                f"add a bound on that index to the mask",
                cause=f"{kernel.name}:{access.pointer}:{past.axis}",
                facts=(Because(f"launched at {found.where}", None),),
            )

