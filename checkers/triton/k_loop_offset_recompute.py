"""KL212 k-loop-offset-recompute: a 2D tile pointer rebuilt from the loop index on every iteration
of a `tl.dot` loop, instead of being built once and advanced."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Confidence, Severity
from kernelint.model.core import dataflow
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl.triton import LOAD, SIGNATURES
from kernelint.rules import Report, Rule


class KLoopOffsetRecompute(Rule):
    code = "KL212"
    name = "k-loop-offset-recompute"
    family = "triton-memory"
    dsl = "triton"
    severity = Severity.INFO
    confidence = Confidence.MEDIUM
    default_enabled = False
    evidence_class = "perf"
    summary = "A 2D tile pointer rebuilt from the loop index on every iteration of a `tl.dot` loop."
    node_types = (ast.Assign, ast.Call)
    doc = """
## What it does
Flags, inside a loop that itself accumulates `tl.dot`, a 2D tile pointer (offsets broadcast along both
axes, `offs_m[:, None] * stride + offs_k[None, :]`) that is computed from scratch from the loop
index on every iteration and loaded in that loop: an assignment such as
`a_ptrs = a_ptr + offs_m[:, None] * stride_am + (k * BLOCK_K + offs_k)[None, :] * stride_ak`,
or the same expression written inside the `tl.load`. Stays silent on pointers built once and
advanced (`a_ptrs += BLOCK_K * stride_ak`), block pointers and tensor descriptors.

Info and off by default: on an H200 with triton 3.6 the recomputed offsets cost nothing
measurable. In an fp16/bf16 GEMM with 128x128x64 tiles, square shapes up to 8192x8192x4096 and
a long-K shape (1024x1024x16384, the most K iterations per tile), the median bad/good time was
1.03x (0.98-1.07x over 5 shapes; *Evidence*). The compiler hoists the loop-invariant part of the
address and strength-reduces the rest. The pattern is also the everyday idiom of tuned
repositories: over the Triton code of 18 real repositories it matched 807 times in 86 files
(703 in flash-linear-attention, 60 in Liger-Kernel, 14 in FlagGems), which is one more reason
to keep it off. Its corpus precision is 0% useful (30 sampled findings, all the pattern, none
worth a change; 13 of 13 judged useless on repositories never seen before: issue 21), far below
the 90% a default-on rule needs. Turn it on only to audit a kernel by hand.

Silent by design: a tile pointer built before the loop plus a scalar step
(`tl.load(k_ptrs + start_n * stride)`, the advancing form), offsets read from memory inside the
loop (a paged KV cache's block table: they cannot be advanced by a constant step), and pointers
rebuilt per tile in a persistent loop around the K loop.

## Why is this bad?
The address of every element of the tile is recomputed (multiplies by two strides and adds) on
every iteration, where a pointer increment would do. Whether that costs anything depends on the
compiler hoisting the invariant part, which current Triton does.

## Example
```python
for k in range(0, tl.cdiv(K, BLOCK_K)):
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + (k * BLOCK_K + offs_k[None, :]) * stride_ak
    a = tl.load(a_ptrs)
    acc = tl.dot(a, b, acc)
```

## Use instead
```python
a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
for k in range(0, tl.cdiv(K, BLOCK_K)):
    a = tl.load(a_ptrs)
    acc = tl.dot(a, b, acc)
    a_ptrs += BLOCK_K * stride_ak
```
"""
    references = f"""
- {SEED}, 'CRITICAL PERFORMANCE PATTERNS', 'Performance Killer #6: K-loop Offset
  Recalculation' (claims 1.1-1.2x), and the regression table row 'K-loop offsets'.
"""

    def check(self, node, ctx):
        if ctx.kernel_of(node, "triton") is None:
            return
        loops = ctx.loops_of(node)
        if not loops or not isinstance(loops[0], ast.For) or not self._accumulates_here(loops[0], ctx):
            return
        loop = loops[0]
        if isinstance(node, ast.Assign):
            target = node.targets[0] if len(node.targets) == 1 else None
            if (isinstance(target, ast.Name) and self._rebuilt_tile(node.value, loop, ctx)
                    and self._loaded_in(target.id, loop, ctx)):
                yield Report(node.value, self._message(target.id))
        elif ctx.is_call(node, LOAD):
            pointer = signature_argument(node, SIGNATURES[LOAD], "pointer")
            if pointer is not None and not isinstance(pointer, ast.Name) and self._rebuilt_tile(pointer, loop, ctx):
                yield Report(pointer, self._message(short(pointer)))

    @staticmethod
    def _message(what: str) -> str:
        return (f"`{what}` is rebuilt from the loop index on every iteration of this `tl.dot` loop; "
                "build the tile pointer once before the loop and advance it (`ptrs += BLOCK_K * stride`)")

    @staticmethod
    def _accumulates_here(loop, ctx) -> bool:
        """The loop itself (not a loop nested in it, as in a persistent tile loop around a K
        loop) carries a ``tl.dot`` accumulator."""
        for node in ast.walk(loop):
            if isinstance(node, (ast.Assign, ast.AugAssign)) and any(dataflow.is_dot(ctx, n) for n in ast.walk(node.value)):
                if ctx.loops_of(node)[0] is loop and dataflow.accumulates_dot(ctx, node):
                    return True
        return False

    @staticmethod
    def _rebuilt_tile(expr, loop, ctx) -> bool:
        """A 2D broadcast tile of offsets assembled inside the loop (a tile pointer built before
        the loop plus a scalar step, ``k_ptrs + start_n * stride``, is the advancing form) whose
        value depends on the loop index."""
        if _axes_built_in(expr, loop, ctx) != {dataflow.ROWS, dataflow.COLS}:
            return False
        if _gathers(expr, loop, ctx):
            return False
        index = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        return _depends_on(expr, index, loop, ctx)

    @staticmethod
    def _loaded_in(name: str, loop, ctx) -> bool:
        for call in ast.walk(loop):
            if ctx.is_call(call, LOAD):
                pointer = signature_argument(call, SIGNATURES[LOAD], "pointer")
                if isinstance(pointer, ast.Name) and pointer.id == name:
                    return True
        return False


def _assignments(loop, ctx) -> dict[str, list[ast.expr]]:
    """Name -> values assigned to it (plain ``=``) inside ``loop``; cached per loop on the file's
    context (every load of the loop asks)."""
    cache = ctx.__dict__.setdefault("_loop_assignments", {})
    found = cache.get(id(loop))
    if found is None:
        found = {}
        for node in ast.walk(loop):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            found.setdefault(name.id, []).append(node.value)
        cache[id(loop)] = found
    return found


def _axes_built_in(expr, loop, ctx, depth: int = 0) -> set[int]:
    """Axes of the 2D broadcasts written in ``expr`` or in names assigned inside ``loop``; names
    bound outside the loop (a tile pointer built once) are opaque."""
    axes: set[int] = set()
    assigned = _assignments(loop, ctx)
    for node in ast.walk(expr):
        found = dataflow.broadcast_operand(ctx, node)
        if found is not None:
            axes.add(found[1])
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and depth < 3:
            for value in assigned.get(node.id, ()):
                if value is not expr:
                    axes |= _axes_built_in(value, loop, ctx, depth + 1)
        if len(axes) == 2:
            break
    return axes


def _gathers(expr, loop, ctx, depth: int = 0) -> bool:
    """Offsets read from memory inside the loop (a page table, block indices): they cannot be
    advanced by a constant step, so rebuilding them is the only way."""
    assigned = _assignments(loop, ctx)
    for node in ast.walk(expr):
        if dataflow.is_load(ctx, node):
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and depth < 3:
            if any(value is not expr and _gathers(value, loop, ctx, depth + 1) for value in assigned.get(node.id, ())):
                return True
    return False


def _depends_on(expr, index: set[str], loop, ctx, depth: int = 0) -> bool:
    """``expr`` reads a loop index name, directly or through names assigned inside ``loop``."""
    assigned = _assignments(loop, ctx)
    for name in (n for n in ast.walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)):
        if name.id in index:
            return True
        if depth < 3 and any(value is not expr and _depends_on(value, index, loop, ctx, depth + 1)
                             for value in assigned.get(name.id, ())):
            return True
    return False
