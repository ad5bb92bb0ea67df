"""KL321 register-fragment-dynamic-index: a register fragment indexed by the variable of a loop
whose trip count is a run-time value, which moves the fragment to local memory."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.blocks import register_fragment_of, runtime_trip_count
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree


class RegisterFragmentDynamicIndex(Rule):
    code = "KL321"
    name = "register-fragment-dynamic-index"
    family = "cute-performance"
    dsl = "cute"
    # Reproduced on the H200: median 2.47x; the corpus gives it no finding.
    severity = Severity.WARNING
    evidence_class = "perf"
    summary = ("A register fragment indexed by the variable of a `range`/`cutlass.range` loop with a run-time "
               "trip count: registers cannot be indexed at run time, so the fragment lives in local memory.")
    wants_finish = True
    doc = """
## What it does
Reports, in a `@cute.jit` / `@cute.kernel` function, a subscript of a register fragment
(`cute.make_rmem_tensor`, `cute.make_fragment(_like)`, `tiled_mma.make_fragment_A/B/C`,
`partition_fragment_*`) whose index uses the variable of an enclosing `range` /
`cutlass.range` loop whose bounds are computed, through names and arithmetic, from a kernel
parameter annotated `cutlass.Int32`-like (`unroll_full=True` does not help: a count known only at
run time cannot be unrolled).

It stays silent for `cutlass.range_constexpr` loops, for loops whose bounds are constants of the
trace (literals, `Constexpr` parameters, configuration stored on `self`, `cute.size(...)` of a
fragment: the compiler unrolls those and the indices become constants), for bounds taken from a
thread or block index (they usually pass through `% C`, and `range(tidx % 32)` over a
32-element fragment stayed in registers), and for tensors in shared or global memory.

## Why is this bad?
Registers are named by the instruction, not addressed: an index known only at run time cannot
pick one. The compiler then keeps the whole fragment in local memory (per-thread memory in the
cache hierarchy) and every access becomes a load or store there. Compiled without a GPU with
nvidia-cutlass-dsl 4.8.1 (for its default target, sm_100a), an 8-element fragment read in a `cutlass.range(n)` loop with a run-time
`n` produced 17 `ld.local` and 2 `st.local` in the PTX, the same loop over `range_constexpr(8)`
or `cutlass.range(8)` none (`benchmarks/cute_compile_only/register_fragment_dynamic_index.py`).
Measured on the H200 (nvidia-cutlass-dsl 4.8.1; reproduced): a recurrence over a 16-float
fragment, `cutlass.range(n)` against `range_constexpr(16)` with an `if i < n`, took 2.24x as long
with one CTA per SM and 2.47-2.49x with 8 and 32 (median 2.47x over 3 shapes; 0.40-0.47 ms
against 0.18-0.19 ms); compiled without a GPU, the PTX of the slow kernel has 19 `ld.local` and 4
`st.local`, the fast one none. Over the CuTe DSL corpus (quack, flashinfer, flash-attention, CUTLASS, TileGym) it reports
nothing; a first version that followed bounds into `cute.size(fragment)` and thread indices
reported 67 loops there, all over static fragment sizes, and was narrowed. On by default.

## Example
```python
frag = cute.make_rmem_tensor(cute.make_layout(8), cutlass.Float32)
for i in cutlass.range(n):          # n: cutlass.Int32
    acc += frag[i]
```

## Use instead
```python
for i in cutlass.range_constexpr(8):
    if i < n:
        acc += frag[i]
```
"""
    references = """
- Issue 23 item 16, from the CuTe DSL seed: "a register fragment indexed by a runtime variable".
- PTX ISA: registers are not addressable; a run-time index needs local (`.local`) memory.
- PTX of both forms: `benchmarks/cute_compile_only/register_fragment_dynamic_index.py`.
"""

    def finish(self, ctx):
        for kernel in ctx.kernels_of("cute"):
            function = kernel.node
            reported: set[int] = set()
            for node in subtree(function):
                if not isinstance(node, ast.Subscript) or ctx.function_of(node) is not function:
                    continue
                fragment = register_fragment_of(ctx, node.value)
                if fragment is None:
                    continue
                index_names = {n.id for n in ast.walk(node.slice) if isinstance(n, ast.Name)}
                for loop in ctx.loops_of(node):
                    if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
                        continue
                    if loop.target.id not in index_names or id(loop) in reported:
                        continue
                    source = runtime_trip_count(ctx, loop, function)
                    if source is None:
                        continue
                    reported.add(id(loop))
                    yield Report(node, f"register fragment `{ast.unparse(node.value)}` indexed by `{loop.target.id}`, the "
                                       f"variable of a loop whose trip count comes from the run-time value "
                                       f"`{ast.unparse(source)}` (line {loop.lineno}): the fragment is moved to local "
                                       f"memory; loop with `cutlass.range_constexpr` over the fragment's size and guard "
                                       f"with `if`, or unroll fully")
                    break
