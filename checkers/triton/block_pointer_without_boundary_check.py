"""KL137 block-pointer-without-boundary-check: a `tl.make_block_ptr` block loaded or stored without
`boundary_check` on a dimension whose run-time extent the block can pass."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.index.tails import block_past_the_end
from kernelint.rules import Because, Report, Rule


class BlockPointerWithoutBoundaryCheck(Rule):
    code = "KL137"
    name = "block-pointer-without-boundary-check"
    family = "triton-pointers"
    dsl = "triton"
    # Reproduced on the H200 (numerics: every column sum wrong with M % 64 != 0); no corpus finding.
    severity = Severity.ERROR
    default_enabled = True
    evidence_class = "numerics"
    summary = ("A block pointer is loaded or stored without `boundary_check` on a dimension whose "
               "run-time extent the last block passes: it reads or writes past the tensor.")
    per_kernel = "triton"
    doc = """
## What it does
Flags a `tl.load` or `tl.store` of a `tl.make_block_ptr` block whose `boundary_check` leaves out
a dimension that, under a launch the project makes, the block can pass: the extent of that
dimension is a run-time size (`M` from `M, N = x.shape`), the block's offset along it is bounded
by the launched grid (`pid * BM` over `cdiv(M, BM)` programs), and the last block reaches past
`M - 1` whenever `M % BM != 0`. The index engine (`kernelint/model/index/`) reads the block
pointer's shape, offsets and block shape and bounds the offsets over the grid.

It stays silent on tensor descriptors (`tl.make_tensor_descriptor`: the hardware clips them), on
dimensions listed in `boundary_check`, on extents that are constants or tuning values, on
blocks advanced in loops (their offsets are not read), under `if`/`while` guards, on launches
whose function tests a size with `%`, and wherever the grid or the extent cannot be read.

## Why is this bad?
Without `boundary_check` a block pointer does no bounds test: the last block's rows past the
extent read whatever follows (the next rows of a larger buffer, or unmapped memory) and a store
writes there. Reductions over the block then take in data that is not the tensor's.

## Example
```python
p_x = tl.make_block_ptr(x_ptr, (M, N), (stride, 1), (pid * BM, 0), (BM, BN), (1, 0))
x = tl.load(p_x, boundary_check=(1,))
```

## Use instead
```python
x = tl.load(p_x, boundary_check=(0, 1), padding_option="zero")
```
"""
    references = """
- issue 20 (out-of-bounds forms missed: block pointers and descriptors loaded without
  `boundary_check` where the extent is a runtime size).
"""

    def check_kernel(self, kernel, ctx):
        for found in block_past_the_end(ctx, kernel):
            verb = "reads" if found.access.kind == "block_load" else "writes"
            yield Report(
                found.access.node,
                f"`{short(found.access.node)}` has no boundary_check on dimension {found.dim}: the last "
                f"block of {found.block} {verb} up to {found.excess:,} indices past its extent "
                f"{found.extent} there when {found.extent} is not a multiple of {found.block}; add "
                f"{found.dim} to boundary_check",
                cause=f"{kernel.name}:{found.access.pointer}:{found.dim}",
                facts=(Because(f"launched at {found.where}", None),),
            )
