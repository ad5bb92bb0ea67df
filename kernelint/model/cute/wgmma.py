"""The SM90 warpgroup MMA (wgmma) group protocol in CuTe DSL kernels: which calls commit a
group of ``cute.gemm`` calls, which wait for committed groups, which hand a pipeline stage back to
its producer, and, for a commit, the first of those that the code reaches after it.

``warpgroup.commit_group()`` closes a group of asynchronous wgmma instructions that read their
A/B operands from shared memory; ``warpgroup.wait_group(n)`` blocks until at most ``n`` groups are
pending. A stage released (``consumer_release``) between the two is handed back to the TMA
producer while the wgmma may still read it. ptxas inserts a missing wait only where registers the
wgmma defines are read, never before the release (measured: benchmarks/cute_compile_only/
wgmma_group_protocol.py)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core.calls import callee_name
from kernelint.model.dsl.cute import WGMMA_COMMIT, WGMMA_WAIT

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

#: Pipeline calls that hand a consumed stage back to the producer.
_RELEASE_METHODS = frozenset({"consumer_release"})
#: A consumer handle's ``release()`` (``handle = consumer.wait_and_advance()``).
_HANDLE_MAKERS = frozenset({"wait_and_advance"})
#: Pipeline calls that wait until the producer has filled a stage.
_WAIT_METHODS = frozenset({"consumer_wait"})


def is_wgmma_commit(ctx: "FileContext", call: ast.Call) -> bool:
    return ctx.call_name(call) in WGMMA_COMMIT


def waits_for_wgmma(ctx: "FileContext", call: ast.Call) -> bool:
    """``warpgroup.wait_group(n)``, directly or inside a helper of this file the call reaches."""
    return ctx.call_or_its_helpers(call, lambda inner: ctx.call_name(inner) in WGMMA_WAIT)


def _released_stage_source(ctx: "FileContext", call: ast.Call):
    """For a call that hands a stage back: ``pipeline.consumer_release(state)`` -> the pipeline's
    source text; ``handle.release()`` on a handle made by ``consumer.wait_and_advance()`` -> the
    calls that made the handle. None for any other call."""
    if not isinstance(call.func, ast.Attribute):
        return None
    if call.func.attr in _RELEASE_METHODS:
        return ast.unparse(call.func.value)
    if call.func.attr != "release" or call.args or call.keywords:
        return None
    values = list(ctx.values_of(call.func.value))
    if values and all(isinstance(v, ast.Call) and callee_name(v.func) in _HANDLE_MAKERS for v in values):
        return values
    return None


def _awaited_by(ctx: "FileContext", source, call: ast.Call) -> bool:
    """``call`` waited for the stage that ``source`` (from ``_released_stage_source``) releases."""
    if isinstance(source, str):
        return (isinstance(call.func, ast.Attribute) and call.func.attr in _WAIT_METHODS
                and ast.unparse(call.func.value) == source)
    return any(call is made for made in source)


def _exclusive_branches(ctx: "FileContext", a: ast.AST, b: ast.AST) -> bool:
    """``a`` and ``b`` sit in different arms of one ``if``: one run reaches only one of them."""
    def arms(node: ast.AST) -> dict[int, str]:
        found, child = {}, node
        for ancestor in ctx.ancestors(node):
            if isinstance(ancestor, ast.If):
                found[id(ancestor)] = ("body" if any(child is s for s in ancestor.body)
                                       else "orelse" if any(child is s for s in ancestor.orelse) else "test")
            child = ancestor
        return found

    arms_a, arms_b = arms(a), arms(b)
    return any(arm != arms_b[key] and "test" not in (arm, arms_b[key])
               for key, arm in arms_a.items() if key in arms_b)


def release_before_wait(ctx: "FileContext", commit: ast.Call, function: ast.AST) -> ast.Call | None:
    """The stage release that the code reaches after ``commit`` before any wgmma wait, or None.

    The calls are read in source order within the innermost loop around the commit (wrapping
    around to the loop's start: the next iteration runs them) or, outside loops, within the
    function. A wait anywhere on the way (a nested ``if`` or loop included) counts, so a path
    that may skip it is not reported. Only a release of a pipeline (or consumer handle) waited
    for before the commit is reported."""
    loops = [loop for loop in ctx.loops_of(commit) if isinstance(loop, (ast.For, ast.While))]
    region = loops[0] if loops else function
    calls = [c for c in ctx.calls_in(function) if _inside(ctx, c, region)]
    position = next(i for i, c in enumerate(calls) if c is commit)
    after = calls[position + 1:]
    if loops:
        after += calls[:position]
    before = [c for c in calls[:position] if not _exclusive_branches(ctx, commit, c)]
    for call in after:
        if waits_for_wgmma(ctx, call) or is_wgmma_commit(ctx, call):
            return None
        source = _released_stage_source(ctx, call)
        if source is None or _exclusive_branches(ctx, commit, call):
            continue
        # Only a stage the group can read: one the code waited for before committing it (a
        # pipeline first waited for after the commit feeds the threads, not this wgmma).
        if any(_awaited_by(ctx, source, earlier) for earlier in before):
            return call
    return None


def _inside(ctx: "FileContext", node: ast.AST, region: ast.AST) -> bool:
    if isinstance(region, (ast.For, ast.While)):
        return any(a is region for a in ctx.ancestors(node)) and not _in_loop_header(ctx, node, region)
    return True


def _in_loop_header(ctx: "FileContext", node: ast.AST, loop: ast.AST) -> bool:
    header = [loop.iter] if isinstance(loop, ast.For) else [loop.test]
    return any(any(n is node for n in ast.walk(h)) for h in header)
