"""KL307 cp-async-wait-immediately: a loop that commits its cp.async copies and waits for all of
them at once, so nothing overlaps the copy."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.calls import argument
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
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "perf"
    summary = "`cp_async_commit_group()` followed at once by `cp_async_wait_group(0)` in a loop: the async copy overlaps nothing."
    node_types = (ast.Call,)
    doc = """
## What it does
Reports `cute.arch.cp_async_wait_group(0)` (or the experimental `cp_async_wait_group(0)`) that
directly follows `cp_async_commit_group()` inside a loop of a `@cute.jit` / `@cute.kernel`
function. Waits for fewer than all groups (`wait_group(1)`, a prefetch distance), waits outside
loops (a one-shot load), and loops that hand each stage to consumer warps through a pipeline
(`producer_commit`) are not reported.

Not yet measured: the pair (a streaming kernel, one CTA of 128 threads per row, that copies each
512-element tile to shared memory with cp.async and waits at once, against the same kernel
with two stages that copies tile k + 1 while tile k is used) compiles for sm_90a but has not
run on a GPU yet, so the rule is info and off until `kernelint prove KL307` runs. Its timed cases
go from 1 to 16 CTAs per SM, because with many CTAs per SM the other CTAs can hide the wait.

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
