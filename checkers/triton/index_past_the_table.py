"""KL142 index-past-the-table: the last program reads a table one entry past its end
(`tl.load(offsets + pid + 1)` where the table has as many entries as the grid has programs)."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.index.access import PID
from kernelint.model.index.overrun import overruns
from kernelint.model.project import shapes
from kernelint.rules import Because, Report, Rule


class IndexPastTheTable(Rule):
    code = "KL142"
    name = "index-past-the-table"
    family = "triton-pointers"
    dsl = "triton"
    # Reproduced on the H200 (numerics: the last segment's length wrong in 3 of 3 cases, n = 1 to 1,000,000);
    # no corpus finding (docs/precision.md).
    severity = Severity.ERROR
    default_enabled = True
    evidence_class = "numerics"
    summary = ("A program reads or writes one element of a table past its end: the grid has as many "
               "programs as the table has entries, and the last program indexes `pid + 1` "
               "(`tl.load(cu_seqlens + pid + 1)`) with no mask.")
    per_kernel = "triton"
    doc = """
## What it does
Flags a scalar `tl.load`, `tl.store` or atomic indexed by the program id (`offsets + pid + 1`,
`table + pid * 2 + 1`) that, under a launch the project makes, passes the end of the host tensor
passed for that pointer on the last program, for every size: the grid launches as many programs
as the table has entries (`grid = (n,)` with `offsets.numel() == n`) and the index reaches one
past. The index engine (`kernelint/model/index/overrun.py`) bounds the index over the launched
grid and compares it with the host tensor's size; it reports only where one program fewer would
stay inside, so the count of programs is the cause.

It stays silent when the table has one more entry than the programs (`cu_seqlens` of `n + 1`
entries and `grid = (n,)`: the usual layout), when a mask or an `if` guards the access, on tile
accesses (KL136 reports those), and wherever the grid or the table's size cannot be read (a
table whose length the host does not show stays unknown).

## Why is this bad?
The last program reads whatever follows the table (the next allocation, or an illegal address)
and uses it as a length or an offset: a segment that runs to a garbage end, a wrong sum, or a
crash far from the cause. Tests with a table that happens to be followed by a suitable value pass.

## Example
```python
start = tl.load(offsets_ptr + pid)
end = tl.load(offsets_ptr + pid + 1)        # offsets has n entries, the grid n programs
```

## Use instead
```python
# pass the n + 1 boundaries (cu_seqlens with the total appended), or
end = tl.load(offsets_ptr + pid + 1, mask=pid + 1 < n, other=total)
```
"""
    references = """
- issue 20 (out-of-bounds forms missed: an index table shorter than the grid, `p_cumsum[pid + 1]`).
"""

    def check_kernel(self, kernel, ctx):
        for found in overruns(ctx, kernel):
            access = found.access
            if not found.cause.startswith(PID) or access.kind not in ("load", "store", "atomic") \
                    or any(n.startswith("lane:") for n in access.offset.symbols()):
                continue
            verb = "reads" if access.kind == "load" else "writes"
            extent = shapes.render(found.extent)
            axis = found.cause[len(PID):]
            yield Report(
                access.node,
                f"`{short(access.node)}` {verb} up to {found.excess:,} element(s) past the end of "
                f"`{found.argument}` ({extent} elements) in the last program of grid axis {axis}: the grid "
                f"launches one program more than the table has entries for; pass a table with one more "
                f"entry or mask the last program",
                cause=f"{kernel.name}:{access.pointer}",
                facts=(Because(f"launched at {found.where}", None),),
            )
