"""KL307 cp-async-wait-immediately: a loop that commits its cp.async copies and waits for all of
them at once, so nothing overlaps the copy."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.core.calls import argument
from kernelint.model.dsl.cute import CP_ASYNC_COMMIT, CP_ASYNC_WAIT, PRODUCER_METHODS
from kernelint.rules import Report, Rule


def _call_of(statement: ast.stmt) -> ast.Call | None:
    return statement.value if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) else None


def _statement_before(ctx, statement: ast.stmt) -> ast.stmt | None:
    """The statement just before ``statement`` in its block, or None when it comes first."""
    holder = ctx.parent(statement)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(holder, field, None)
        if isinstance(block, list) and statement in block:
            position = block.index(statement)
            return block[position - 1] if position > 0 else None
    return None


def _feeds_a_pipeline(loop: ast.AST) -> bool:
    """The loop is a warp-specialised producer: it hands each stage to consumers through a
    pipeline (``producer_commit``), so other warps compute while this one waits."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in PRODUCER_METHODS
        for n in ast.walk(loop)
    )


class CpAsyncWaitImmediately(Rule):
    code = "KL307"
    name = "cp-async-wait-immediately"
    family = "cute-pipeline"
    dsl = "cute"
    severity = Severity.WARNING
    evidence_class = "perf"
    summary = "`cp_async_commit_group()` followed at once by `cp_async_wait_group(0)` in a loop: the async copy overlaps nothing."
    node_types = (ast.Call,)
    calls = CP_ASYNC_WAIT
    doc = """
## What it does
Reports `cute.arch.cp_async_wait_group(0)` (or the experimental `cp_async_wait_group(0)`) that
directly follows `cp_async_commit_group()` inside a loop of a `@cute.jit` / `@cute.kernel`
function. Waits for fewer than all groups (`wait_group(1)`, a prefetch distance), waits outside
loops (a one-shot load), and loops that hand each stage to consumer warps through a pipeline
(`producer_commit`) are not reported.

Measured on the H200 (nvidia-cutlass-dsl 4.8.1): the pair streams a matrix through shared
memory, one CTA of 128 threads per row, copying each 512-element tile with cp.async and waiting
at once (bad) or with two stages that copy tile k + 1 while tile k is used (good), over the same
138 MB at 1, 2, 4 and 16 CTAs per SM. Median 1.38x slower: 1.67x at 1 CTA per SM, 1.52x at 2,
1.24x at 4 and 1.00x at 16, where the other CTAs on the SM hide the wait (the good kernel
reaches 37-75 % of the HBM roofline; a tiny control case times alike). So the cost is real where
a kernel runs few CTAs per SM (large tiles, much shared memory per CTA), and nothing where
occupancy already hides the latency; a warning, on by default.

## Why is this bad?
`cp.async` exists so that the copy of the next tile runs while the current one is used. A loop
that issues the copy of tile k, commits it and waits for every group before touching the data
serialises load and compute exactly like a plain load would, and pays the commit/wait on top.
Double-buffer instead: issue tile k + 1 before waiting for tile k with `wait_group(1)`.

## Example
```python
for k in cutlass.range(k_tiles):
    cute.copy(g2s, tAgA[None, None, None, k], tAsA)
    cute.arch.cp_async_commit_group()
    cute.arch.cp_async_wait_group(0)
    cute.arch.sync_threads()
    ...
```

## Use instead
```python
cute.copy(g2s, tAgA[None, None, None, 0], tAsA[None, None, None, 0])
cute.arch.cp_async_commit_group()
for k in cutlass.range(k_tiles):
    if k + 1 < k_tiles:
        cute.copy(g2s, tAgA[None, None, None, k + 1], tAsA[None, None, None, (k + 1) % 2])
    cute.arch.cp_async_commit_group()
    cute.arch.cp_async_wait_group(1)
    cute.arch.sync_threads()
    ...
```
"""
    references = "CuTe DSL kernel skill, 'Failure → diagnosis table' (async copies give no speedup: too little work between issue and wait)."

    def check(self, node: ast.Call, ctx):
        if ctx.call_name(node) not in CP_ASYNC_WAIT or ctx.kernel_of(node, "cute") is None:
            return
        pending = argument(node, "n", 0)
        if pending is None or ctx.resolve_int(pending) != 0:
            return
        loops = ctx.loops_of(node)
        statement = ctx.statement_of(node)
        if not loops or _feeds_a_pipeline(loops[0]) or statement is None:
            return
        before = _statement_before(ctx, statement)
        previous = _call_of(before) if before is not None else None
        if previous is None or ctx.call_name(previous) not in CP_ASYNC_COMMIT:
            return
        yield Report(
            node,
            "cp.async group committed and waited for at once inside the loop; the copy overlaps no "
            "work: prefetch the next tile before waiting and wait with `cp_async_wait_group(1)`",
        )
