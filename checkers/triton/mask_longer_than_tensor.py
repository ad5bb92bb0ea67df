"""KL143 mask-longer-than-tensor: a mask bounds an index by a length longer than the tensor's
dimension it indexes (another tensor's size), so the lanes past the dimension read or write."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.index.access import kernel_index
from kernelint.model.index.axes import masked_past_extent
from kernelint.model.project import shapes
from kernelint.rules import Because, Report, Rule


class MaskLongerThanTensor(Rule):
    code = "KL143"
    name = "mask-longer-than-tensor"
    family = "triton-pointers"
    dsl = "triton"
    # Reproduced on the H200 (numerics: 8,192 of 8,708,096 buffer elements overwritten at M=8192, N=1000,
    # one per row); no corpus finding (docs/precision.md).
    severity = Severity.ERROR
    default_enabled = True
    evidence_class = "numerics"
    summary = ("A mask bounds an index by a length longer than the dimension it indexes "
               "(`mask=cols < N` on a tensor of `N - 1` columns): the lanes past the tensor's own "
               "size read or write beyond it.")
    per_kernel = "triton"
    doc = """
## What it does
Flags a masked `tl.load`, `tl.store` or atomic whose mask compares an index with a length that,
in the host facts of a launch the project makes, is longer than the dimension of the tensor the
index addresses for every size: the mask of an output of `N - 1` columns compares with the
input's `N`, a table of `n` entries is masked with `2 * n`, a strided view of a shorter tensor is
masked with the logical length of another (triton-lang/triton#10336). A stepped slice keeps
`cdiv(stop - start, step)` elements of its dimension at `step` times the stride (`x[::2]` of `n`
elements has `cdiv(n, 2)`, `x[1::2]` has `cdiv(n - 1, 2)`, `x[:, ::2]` and `x[..., ::4]` likewise
along their axis), so a mask by the storage's length `n` on such a view is reported: it passes the
view by `n - cdiv(n, 2)` elements: none at `n = 1`, at least one for every larger `n`. The index
engine (`kernelint/model/index/axes.py`) splits the address into one index per dimension of the
host tensor (by the stride each term carries) and compares the mask's bound with that dimension.

It stays silent when the bound is the dimension itself or shorter (`x[::2]` masked by
`x[::2].numel()`, `triton.cdiv(n, 2)`, `(n + 1) // 2` or `n // 2`; a step-1 slice `x[:, 1:]` masked by
`N - 1`; a `.contiguous()` copy masked by its own width), when the host facts do not relate the two
lengths (`L` and `bins.shape[0]` read separately: unknown), when the bound can be shorter than the
dimension for some sizes, when the lanes cannot reach past the dimension, under an `if` or in a
`while` loop of the kernel, and on a flat offset whose mask is a constant too long (KL136 reports
those). A bound that is never shorter than the dimension and longer at some sizes only is reported
with one such size: `x[1::2]` (`cdiv(n - 1, 2)` elements) masked by `cdiv(n, 2)`, the length of
`x[::2]`, reads one element past it for every odd `n` ("1 at x.numel() = 3"); the sizes are found
by trying each size from 1 to 8 (`kernelint/model/index/sign.py`).

## Why is this bad?
The mask looks like a bounds check and is one, for another tensor. The lanes between the
tensor's end and the bound read whatever follows it (the next row, the padding of a wider
buffer, another allocation) or write over it; results are wrong only where the sizes differ,
so tests on square shapes pass.

## Example
```python
# out has N - 1 columns, x has N
tl.store(out_ptr + row * stride_om + cols, b - a, mask=cols < N)
```

## Use instead
```python
tl.store(out_ptr + row * stride_om + cols, b - a, mask=cols < N - 1)
```
"""
    references = """
- issue 20 (out-of-bounds forms missed: a mask `offs < L` where the tensor is a strided view of
  a shorter storage, triton-lang/triton#10336).
- triton-lang/triton#10336, "potential GPU OOB read in jit when masked `tl.load` uses logical length
  larger than tensor view" (closed, labelled a question: the mask is the caller's to get right).
  Its kernel loads `bins_ptr + offs * SB` with `mask=offs < L`, `L = 4` being the length of `vals`,
  while `bins = bins_base[0::2]` has 3 elements at stride 2 of a 5-element storage; the
  triton-viz sanitizer's report in the thread shows lane 3 reading `bins_base[6]`, past the
  storage. The sanitizer learned to check such views in Deep-Learning-Profiling-Tools/triton-viz#368.
"""

    def check_kernel(self, kernel, ctx):
        found_all = masked_past_extent(ctx, kernel)
        if not found_all:
            return
        symbols = kernel_index(ctx, kernel).symbols
        for found in found_all:
            access, long = found.access, found.long
            verb = "read" if access.kind == "load" else "write"
            name = long.name(long.axis)
            extent, length = shapes.render(long.extent), shapes.render(long.length)
            yield Report(
                access.node,
                f"the mask of `{short(access.node)}` bounds the {name} index `{symbols.render(long.index)}` "
                f"by {length}, but `{found.argument}` has {extent} {name}s there: the lanes past it {verb} up to "
                f"{_excess(long)} {name}(s) beyond the tensor{_when(long)}; bound the mask by {extent}",
                cause=f"{kernel.name}:{access.pointer}:{long.axis}",
                facts=(Because(f"launched at {found.where}", None),),
            )


def _excess(long) -> str:
    """How far the mask passes the dimension: a number, or ``N - cdiv(N, 2)`` written as the
    difference it is rather than as the sum the polynomial sorts it into."""
    if long.surplus.is_const or all(c > 0 for _, c in long.surplus.terms):
        return shapes.render(long.surplus)
    extent = shapes.render(long.extent)
    if len(long.extent.terms) > 1:
        extent = f"({extent})"
    return f"{shapes.render(long.length)} - {extent}"


def _when(long) -> str:
    """For a mask longer at some sizes only: one such size and how far it passes there."""
    if long.witness is None:
        return ""
    sizes, value = long.witness
    at = ", ".join(f"{shapes.label(n)} = {v}" for n, v in sorted(sizes.items(), key=lambda i: shapes.label(i[0])))
    return f" at some sizes ({value:,} at {at})"
