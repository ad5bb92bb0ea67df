"""KL308 missing-sync-after-cp-async-wait: shared memory filled by cp.async read by other threads
after `cp_async_wait_group` with no CTA barrier in between."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.cp_async import cp_async_tensors, reads_other_threads_copies
from kernelint.model.core.calls import callee_name
from kernelint.model.cute.static import traced_functions
from kernelint.model.dsl.cute import CP_ASYNC_WAIT, SMEM_HANDOFFS
from kernelint.rules import Report, Rule

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


class MissingSyncAfterCpAsyncWait(Rule):
    code = "KL308"
    name = "missing-sync-after-cp-async-wait"
    family = "cute-pipeline"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("`cp_async_wait_group(n)` followed by a read of shared memory that other threads copied, with no "
               "`sync_threads()` in between: the read races with their copies (stale or wrong data).")
    node_types = (ast.Call,)
    calls = CP_ASYNC_WAIT
    wants_finish = False
    doc = """
## What it does
Reports `cute.arch.cp_async_wait_group(n)` in CuTe DSL kernel code when, on some path after
it, the function reads a shared-memory tensor that cp.async copies of the same function write,
through a view that is not the copying thread's own, before any CTA barrier
(`cute.arch.sync_threads()`, `cute.arch.barrier(...)`, a `NamedBarrier`'s `arrive_and_wait()`),
warp sync, cluster sync or pipeline hand-off (`producer_commit`, `mbarrier_arrive`,
`cp_async_mbarrier_arrive_noinc`). A call to a helper of the file that syncs counts as the
sync. Paths run through the rest of the block, around the loop into the next iteration (a
sync at the top of the loop body is found) and out of the loop.

A cp.async copy is `cute.copy(tiled_copy, src, dst)` with a tiled copy or atom built over
`cpasync.CopyG2SOp` (followed through local names and the kernel's launches), or a copy helper
called with `is_async=True`. Reads through the copying thread's own partition
(`tS = g2s.get_slice(tidx).partition_D(s)`, and slices of it) are not reported: that thread
copied those elements and its own wait covers them. Writes, new views, shape questions and
reads in other functions are not reads here; waits whose copies are issued elsewhere are not
checked.

Measured on the H200 (reproduced): an fp32 transpose through a three-slot cp.async ring of
64x64 tiles (256 threads, the next tile prefetched, the current one read column by column)
returned 22,172,297 of 67,108,864 elements wrong for a 4096x16384 input and 32,333,059 for
8192x8192 (max abs error 7.9) without the barrier, and matched exactly with `sync_threads()`
after the wait. Error, on by default: its one finding on real code (a one-warp page-index load in flashinfer,
true by the PTX rules but not shown failing) is true, and CUTLASS, quack and flash-attention
give none.

## Why is this bad?
`cp.async.wait_group` waits for the copies *the executing thread* committed; it says nothing
about the copies other threads issued, and it does not make this thread's copies visible to the
others. A thread that reads elements another thread copied (an MMA partition, an ldmatrix
view, a transpose) right after its own wait can see the old contents of the buffer: the other
thread may not have reached its wait yet, or, in a loop, may not even have issued the copy. The
result is intermittently wrong data, not an error.

## Example
```python
cute.copy(g2s, tG[None, None, None, k], tS)   # tS = g2s.get_slice(tidx).partition_D(s_tile)
cute.arch.cp_async_commit_group()
cute.arch.cp_async_wait_group(0)
out[row, col] = s_tile[col, row]              # elements other threads copied
```

## Use instead
```python
cute.copy(g2s, tG[None, None, None, k], tS)
cute.arch.cp_async_commit_group()
cute.arch.cp_async_wait_group(0)
cute.arch.sync_threads()
out[row, col] = s_tile[col, row]
```
"""
    references = """
- CuTe DSL kernel skill, 'Asynchrony tier 1: cp.async (SM80+)': `cp_async_wait_group(0)` then
  `sync_threads()` "make smem visible CTA-wide"; failure table: stale smem reads from a missing
  `sync_threads` after the wait.
"""

    def check(self, node: ast.Call, ctx):
        if ctx.call_name(node) not in CP_ASYNC_WAIT:
            return
        function = ctx.function_of(node)
        statement = ctx.statement_of(node)
        if function is None or statement is None or id(function) not in traced_functions(ctx):
            return
        tensors = cp_async_tensors(ctx, function)
        if not tensors.shared:
            return
        read = self._first_unsynced_read(ctx, node, statement, tensors)
        if read is None:
            return
        yield Report(
            node,
            f"shared memory other threads copied with cp.async is read after this wait (`{read.id}`, "
            f"line {read.lineno}) with no CTA barrier in between: the wait covers only this thread's own "
            f"copies; add `cute.arch.sync_threads()` after the wait (`sync_warp()` when only the copying warp reads)",
        )

    # --- paths ---------------------------------------------------------------------------------

    def _first_unsynced_read(self, ctx, wait: ast.Call, statement: ast.stmt, tensors) -> ast.Name | None:
        node = statement
        while True:
            holder = ctx.parent(node)
            block = self._block_of(holder, node)
            if block is None:
                return None
            index = block.index(node)
            kind, found = self._scan(ctx, block[index + 1:], wait, tensors)
            if kind == "read":
                return found
            if kind == "sync":
                return None
            if isinstance(holder, _LOOPS) and block is holder.body:
                kind, found = self._scan(ctx, block[: index + 1], wait, tensors)
                if kind == "read":
                    return found
            if isinstance(holder, _FUNCTIONS):
                return None
            node = holder

    @staticmethod
    def _block_of(holder: ast.AST, node: ast.AST) -> list | None:
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(holder, name, None)
            if isinstance(block, list) and node in block:
                return block
        return None

    def _scan(self, ctx, statements: list, wait: ast.Call, tensors) -> tuple[str | None, ast.AST | None]:
        """The first event in ``statements`` in source order: ``("sync", call)``, ``("read", name)``,
        or ``(None, None)``; stops at ``wait`` itself (the next iteration's wait)."""
        for statement in statements:
            events = sorted(
                (n for n in ast.walk(statement) if isinstance(n, (ast.Call, ast.Name))), key=_position
            )
            for event in events:
                if event is wait:
                    return None, None
                if isinstance(event, ast.Call) and ctx.call_or_its_helpers(event, lambda c: self._hands_off(ctx, c)):
                    return "sync", event
                if isinstance(event, ast.Name) and reads_other_threads_copies(ctx, event, tensors):
                    return "read", event
        return None, None

    @staticmethod
    def _hands_off(ctx, call: ast.Call) -> bool:
        return callee_name(call.func) in SMEM_HANDOFFS
