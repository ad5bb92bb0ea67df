"""KL206 static-range-full-unroll: a `tl.static_range` loop of more than 16 iterations, a trip count
the file fixes, around a heavy body (`tl.dot`, a reduction, `tl.where` on a 2D tile)."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Confidence, Severity
from kernelint.model.core import dataflow
from kernelint.model.triton import backends, tiles
from kernelint.model.dsl import triton
from kernelint.rules import Report, Rule

#: Trip counts up to this are left alone: the seed calls full unrolling fine up to 8-16
#: iterations, and real kernels unroll pipeline stages, window taps and tuple elements so.
_MAX_QUIET_TRIPS = 16


class StaticRangeFullUnroll(Rule):
    code = "KL206"
    name = "static-range-full-unroll"
    family = "triton-compute"
    dsl = "triton"
    # Reproduced on the H200 (median 2.34x; 2.40x in the run before): a warning by the evidence policy.
    severity = Severity.WARNING
    confidence = Confidence.MEDIUM
    evidence_class = "perf"
    summary = ("A `tl.static_range` loop of more than 16 iterations around `tl.dot`, reductions or 2D "
               "`tl.where`: fully unrolled, it spills registers and is not software-pipelined.")
    node_types = (ast.For,)
    doc = """
## What it does
Flags `for ... in tl.static_range(...)` inside a Triton kernel or `@triton.jit` helper when

- the trip count is known from the file and is above 16 for some launch or config: literals,
  module constants, `tl.constexpr` defaults, the constexpr arguments a launch of the kernel in
  the file passes (`K=HIDDEN` with `HIDDEN = 4096` at module level), and the values of a
  literal list of `triton.Config({...})` for autotuned parameters; `static_range(stop)`,
  `(start, stop)` and `(start, stop, step)`, negative steps included; and
- the loop body is heavy: it calls `tl.dot`, reduces a tile (`tl.sum`, `tl.max`, `tl.min`,
  `tl.argmax`, `tl.reduce`, ...), or selects with `tl.where` on a 2D tile (an argument built
  from `x[:, None]` / `x[None, :]` broadcasts).

Silent on trip counts of 16 or less (pipeline stages, convolution taps, the length of a
constexpr tuple, a world size), on trip counts the file does not fix (a constexpr the launch
computes from a tensor's shape, an argument of the host function), on light bodies (loads,
stores, elementwise math on 1D vectors), on `range` and `tl.range` loops, and on files written
for a non-NVIDIA Triton backend (Ascend needs `tl.static_range` over host-specialised counts).

Measured on an H200 (triton 3.6.0): reproduced, median bad/good time 2.34x (1.37-3.92x over 5
shapes, same tiles on both sides, good kernels at 37-61% of the roofline; the run before gave
2.40x, 1.31-3.99x). A GEMM whose K loop over 64 tiles of 64 is unrolled runs 1.37x (fp16) and
1.42x (bf16) slower, attention over 32 unrolled key blocks 3.92x (head size 64) and 2.34x (128),
and a cross-entropy over 32 unrolled vocabulary chunks of 4 x 512 3.13x (*Evidence*). Compiled for sm_90 (ptxas), every unrolled
kernel of the pair spills (144-2016 bytes of stack per thread) and takes 15-30 s to compile
where the loop takes 1-3 s (a 128-tile K loop took about 170 s). The seed's own case, an
in-register `solve_tril` (`tl.static_range(1, BS)`, reductions and `tl.where` on a BS x BS
tile, BS 16-64), measured 1.00x (0.99-1.00x over 4 shapes) with no spills: a body that carries
one small tile from one iteration to the next does not suffer. A warning, on by default: in
the 13 corpus repositories no `tl.static_range` of a heavy body resolves above 16 (their counts
come from tensor shapes), so it reports nothing there; it fires on trip counts the source fixes.

## Why is this bad?
`tl.static_range` is unrolled by Triton's front end: the kernel gets one copy of the body per
iteration, so values of many iterations can be live at once (register spills to local memory),
the compiler has no loop left to software-pipeline (no multi-stage prefetch of the next tiles
while the tensor cores work), and compile time grows with the trip count. A `range` loop over
the same constexpr bounds keeps one body and lets Triton pipeline it.

## Example
```python
HIDDEN = 4096

@triton.jit
def linear_kernel(a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr, BLOCK_K: tl.constexpr, ...):
    ...
    for _ in tl.static_range(K // BLOCK_K):  # 64 copies of the body
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N

linear_kernel[grid](a, b, c, M, N, K=HIDDEN, BLOCK_K=64, ...)
```

## Use instead
```python
    for _ in range(K // BLOCK_K):  # one body, software-pipelined
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
```
Keep `tl.static_range` where the body must be specialised per iteration (indexing a constexpr
tuple, a compile-time branch on the index) or the trip count is small.
"""
    references = f"""
- {SEED}, 'Optimizing reference', section '9.2 Loop Unrolling Control for Register Pressure'
  (claims 2-5x for iterative kernels; use `loop_unroll_factor=1` beyond 16 iterations), and the
  checklist rows 'Loop unroll' and 'High registers + local spills'.
- Issue 10 (Triton performance rules): try the contexts the claim names before demoting.
"""

    def check(self, node, ctx):
        call = node.iter
        if not (isinstance(call, ast.Call) and ctx.is_call(call, triton.STATIC_RANGE)):
            return
        if ctx.kernel_of(node, "triton") is None or backends.foreign_backend(ctx):
            return
        trips = [size for size in _trip_counts(ctx, call) if size.value > _MAX_QUIET_TRIPS]
        if not trips:
            return
        heavy = _heavy_work(ctx, node)
        if heavy is None:
            return
        most = max(trips, key=lambda size: size.value)
        where = "" if most.site is call else f" (set on {ctx.project.where(most.site)})"
        yield Report(call, f"`tl.static_range` unrolls this loop {most.value} times{where} around {heavy}: "
                           "the unrolled copies can spill registers and cannot be software-pipelined; "
                           "use `range(...)` unless full unrolling was measured to help")


def _trip_counts(ctx, call: ast.Call) -> list[tiles.SizeValue]:
    """The iteration counts of ``tl.static_range(...)`` the kernel or its launches in this file fix."""
    if call.keywords or not 1 <= len(call.args) <= 3 or any(isinstance(a, ast.Starred) for a in call.args):
        return []
    args = call.args
    if len(args) == 1:
        count: ast.expr = args[0]
    elif len(args) == 2:
        count = ast.BinOp(args[1], ast.Sub(), args[0])
    else:
        start, stop, step = args
        fixed_step = ctx.resolve_int(step)
        if fixed_step is not None and fixed_step < 0:
            start, stop, step = stop, start, ast.Constant(-fixed_step)
        # ceil((stop - start) / step)
        span = ast.BinOp(ast.BinOp(stop, ast.Sub(), start), ast.Add(), ast.BinOp(step, ast.Sub(), ast.Constant(1)))
        count = ast.BinOp(span, ast.FloorDiv(), step)
    return tiles.int_values(ctx, count, at=call, configs=True)


def _heavy_work(ctx, loop: ast.For) -> str | None:
    """What makes the loop body heavy (for the message), or None for a light body."""
    for statement in loop.body:
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call):
                continue
            if dataflow.is_dot(ctx, node):
                return "`tl.dot`"
            if ctx.kernel_of(node, "triton") is not None and dataflow.is_reduction(ctx, node):
                return "a reduction"
            if ctx.is_call(node, triton.WHERE) and any(dataflow.broadcast_axes(ctx, a) for a in node.args):
                return "`tl.where` on a 2D tile"
    return None
