"""KL315 tma-store-not-drained: a TMA store whose kernel never waits for it to read shared memory."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.static import cute_function
from kernelint.model.cute.tma import drains_bulk_stores, tma_stores
from kernelint.rules import Report, Rule


class TmaStoreNotDrained(Rule):
    code = "KL315"
    name = "tma-store-not-drained"
    family = "cute-pipeline"
    dsl = "cute"
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "numerics"
    summary = "A TMA store (shared to global) with no `cp_async_bulk_wait_group(0, read=True)` after it in the kernel."
    node_types = (ast.FunctionDef,)
    doc = """
## What it does
Reports a TMA store, `cute.copy(atom, smem_tile, gmem_tile)` whose atom is built with
`make_tiled_tma_atom(CopyBulkTensorTileS2GOp(), ...)` (followed from the kernel parameter to
the launch in the same file), when nothing after it in the kernel, or in a helper of the file
that the kernel calls, waits for bulk stores: no `cute.arch.cp_async_bulk_wait_group(...)` and
no store pipeline's `producer_tail()`. Atoms whose origin is not visible in the file are not
reported: a kernel whose store atom is built in another module (a host file that calls
`make_tiled_tma_atom` and passes the atom in, the seed's layout when kernels and launchers are
split) is a known miss until the program model follows atoms across modules; it is silent, not
a finding, because a copy atom passed in could as well be a plain `CopyUniversalOp` store.

Off by default, from the evidence: the pair (each CTA adds one to a 128x128 fp16 tile in shared
memory and stores it with TMA, then exits with no wait) wrote the correct 8192x8192 output on
the H200, exactly, like the version that waits. The PTX rules still ask for the wait before the
source is reused, and CUTLASS's own kernels drain their stores; what the H200 did not show is a
CTA's exit corrupting a store in flight. The corpus findings are CUTLASS's two TMA tutorials
(`tutorial_tma/tma_v0.py`, `tma_v1.py`), which end exactly like the pair's bad kernel.

## Why is this bad?
A TMA store runs asynchronously: the copy engine reads the shared-memory tile after the issuing
thread has moved on. Until `cp.async.bulk.wait_group.read` says the read is done, the tile must
not be overwritten, and the CTA should not exit while the store still reads its shared memory,
since that memory goes to the next CTA scheduled on the SM. Overwriting the tile for the next
output (or exiting) early can write a mix of old and new data to global memory.

## Example
```python
cute.copy(tma_atom_dst, sTile, gTile)
# kernel ends
```

## Use instead
```python
cute.copy(tma_atom_dst, sTile, gTile)
cute.arch.cp_async_bulk_commit_group()
cute.arch.cp_async_bulk_wait_group(0, read=True)
```
"""
    references = "CuTe DSL kernel skill, 'Asynchrony tier 2: TMA + mbarriers (SM90+)' (drain bulk stores before reuse or exit); PTX ISA, `cp.async.bulk.wait_group`."

    def check(self, node: ast.FunctionDef, ctx):
        if cute_function(ctx, node) is None:
            return
        stores = tma_stores(ctx, node)
        if not stores:
            return
        calls = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
        for store in stores:
            position = (store.lineno, store.col_offset)
            if any((c.lineno, c.col_offset) > position and drains_bulk_stores(ctx, c) for c in calls):
                continue
            yield Report(
                store,
                "TMA store with no `cp_async_bulk_wait_group(0, read=True)` after it; the copy engine "
                "may still be reading the shared-memory tile when it is reused or the CTA exits",
            )
