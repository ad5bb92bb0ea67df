"""KL136 unmasked-tail-tile: a tile loaded or stored with no mask under a `cdiv` grid, where the
size the host launches over need not be a multiple of the block."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.index.tails import past_the_end
from kernelint.rules import Because, Report, Rule


class UnmaskedTailTile(Rule):
    code = "KL136"
    name = "unmasked-tail-tile"
    family = "triton-pointers"
    dsl = "triton"
    # Reproduced on the H200 (numerics: 445 of 1,001,027 buffer elements overwritten at n = 1,000,003);
    # 3 of 3 corpus findings true (docs/precision.md).
    severity = Severity.ERROR
    default_enabled = True
    evidence_class = "numerics"
    summary = ("A tile is loaded or stored with no mask under a `cdiv(n, BLOCK)` grid: when n is not a "
               "multiple of BLOCK the last program reads or writes past the end of the tensor.")
    per_kernel = "triton"
    doc = """
## What it does
Flags a `tl.load`, `tl.store` or atomic on a tile of `tl.arange` offsets that has no mask, when
the program model shows that, under a launch the project makes, the last program passes the end
of the tensor passed for that pointer: the grid is `cdiv(n, BLOCK)` programs of `BLOCK` lanes,
the tensor holds `n` elements, and nothing makes `n` a multiple of `BLOCK`. The index engine
(`kernelint/model/index/`) reads the address as a polynomial over the program id and the lanes,
bounds it over the launched grid (`pid * BLOCK + lane <= n - 1 + BLOCK - 1`) and compares it with
the host tensor's element count (`kernelint/model/project/shapes.py`). When another access of
the kernel masks the same offsets, the message says so: the mask was computed and not passed.
A masked access is flagged too when its mask bounds the offsets by the tensor's end but the
address adds a constant to them (`tl.load(x + offs + 1, mask=offs < n)` reads `x[n]`), or when its
mask compares the address with a bound a constant past the end (`tl.store(out + offs, v,
mask=offs < n + 1)` on an `out` of `n` elements; a bound that passes the end by a size, `2 * n`,
is KL143's).

It stays silent on masked accesses, on accesses under an `if` or in a `while` loop of the kernel
(a guard may cover them), on block pointers and descriptors, on launches whose function tests a
size with `%` (`assert n % BLOCK == 0`), and wherever the grid, the address or the tensor's size
cannot be read (a kernel launched from code the project does not show, a tensor of unknown shape).

## Why is this bad?
The last program's lanes past `n` read memory that belongs to something else and write over it:
an illegal address when the tensor ends at its allocation, and silently wrong data when it is a
view of a larger buffer (a slice of a batch, one projection of a fused QKV buffer). Every test
with sizes that are multiples of the block passes.

## Example
```python
offs = pid * BLOCK + tl.arange(0, BLOCK)
mask = offs < n
x = tl.load(x_ptr + offs, mask=mask, other=0.0)
tl.store(out_ptr + offs, x * scale)
```

## Use instead
```python
tl.store(out_ptr + offs, x * scale, mask=mask)
```
"""
    references = """
- issue 20 (out-of-bounds forms missed: a tile with no mask under a `cdiv` grid; a mask computed
  and then not passed to the store, Dao-AILab/flash-attention PR #2822).
"""

    def check_kernel(self, kernel, ctx):
        for found in past_the_end(ctx, kernel):
            yield Report(found.access.node, _message(found), cause=f"{kernel.name}:{found.access.pointer}",
                         facts=(Because(f"launched at {found.where}", None),))


def _message(found) -> str:
    """What the access does past the end: a mask that admits too much, a mask the address
    outruns, or no mask at all."""
    access = found.access
    if found.mask_bound is not None:
        verb = "read" if access.kind == "load" else "write"
        return (f"the mask of `{short(access.node)}` admits offsets below {found.mask_bound}, past the "
                f"end of `{found.argument}` ({found.extent} elements): the lanes past the end {verb} up to "
                f"{found.excess:,} element(s) beyond it; bound the mask by {found.extent}")
    if found.mask_short:
        return (f"the mask of `{short(access.node)}` bounds the offsets by the end of `{found.argument}` "
                f"({found.extent} elements) but the address adds to them: it reaches up to "
                f"{found.excess:,} element(s) past the end; bound the mask by the address it guards")
    verb = "reads" if access.kind == "load" else "writes"
    when = (f"when {found.tail[0]} is not a multiple of {found.tail[1]}" if found.tail
            else "for the last program")
    twin = (f"; the {found.masked_twin.kind} at line {found.masked_twin.node.lineno} masks the same "
            f"offsets: pass that mask here too" if found.masked_twin is not None else
            "; mask it with the offsets' bound")
    return (f"`{short(access.node)}` has no mask: the last program {verb} up to {found.excess:,} "
            f"elements past the end of `{found.argument}` ({found.extent} elements) {when}{twin}")
