"""KL211 missing-alignment-hints: a pointer read from a pointer table and dereferenced with no
alignment hint, so the compiler must assume the worst and load element by element."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Confidence, Severity
from kernelint.model.core import dataflow
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl.triton import HINTS, LOAD, SIGNATURES, STORE
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree


class MissingAlignmentHints(Rule):
    code = "KL211"
    name = "missing-alignment-hints"
    family = "triton-memory"
    dsl = "triton"
    severity = Severity.INFO
    confidence = Confidence.MEDIUM
    default_enabled = False
    evidence_class = "perf"
    summary = "A pointer loaded from a pointer table is dereferenced without an alignment hint."
    node_types = (ast.Assign,)
    doc = """
## What it does
Flags `p = tl.load(table + i).to(tl.pointer_type(...))` (a base pointer read from a pointer
table, as in grouped GEMMs and multi-tensor "foreach" kernels) when a block of elements is then
loaded or stored through `p` and the kernel gives no hint about it or a pointer derived from it:
no `tl.multiple_of(p, ...)` and no `tl.assume(...)` that names it. Scalar accesses through `p`
(one element: a split size, a flag) gain nothing from alignment and are not reported.

Info and off by default. Measured so far: in a pointer-table grouped GEMM on the H200,
`tl.assume(stride % 8 == 0)` on strides read from memory changed nothing (154.1 vs 154.6
TFLOP/s, 1.00x). Compiling a multi-tensor axpy for sm_90 (triton 3.9) shows where a hint does
matter: without one, the loaded pointer's alignment is unknown and every 16-bit element is
loaded on its own; with `p = tl.multiple_of(p, 16)` (and the same on a size read from the
table, when masks depend on it) the compiler emits 128-bit vector loads and stores. The seed's
`tl.assume(p.to(tl.int64) % 16 == 0)` leaves the scalar loads as they are. Timed on the H200
(see *Evidence*), that pair did not show the claim, and its timings do not repeat: one run
measured a median 0.46x (0.44-0.77x over 4 shapes; the kernel without hints faster), a later one
1.16x (0.96-2.41x; the hinted kernel 0.60 ms then 0.22 ms on the same 64 tensors of 1M fp16).
Both are below the 1.2x a warning needs, so the rule stays info and off.

## Why is this bad?
Kernel arguments get alignment for free: Triton specialises pointer arguments that are
16-byte aligned. A pointer read from memory gets nothing, so contiguous accesses through it
cannot be vectorised. Only add a hint the host guarantees (PyTorch allocations are aligned;
views with offsets may not be).

## Example
```python
x_ptr = tl.load(ptrs + t).to(tl.pointer_type(DTYPE))
x = tl.load(x_ptr + offs, mask=offs < n)
```

## Use instead
```python
x_ptr = tl.multiple_of(tl.load(ptrs + t).to(tl.pointer_type(DTYPE)), 16)
x = tl.load(x_ptr + offs, mask=offs < n)
```
"""
    references = f"""
- {SEED}, 'CRITICAL PERFORMANCE PATTERNS', 'Performance Killer #4: Missing Alignment Hints'
  (claims 1.5-2x), and the regression table row 'Alignment' (also claimed 5-15% elsewhere).
"""

    def check(self, node, ctx):
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return
        kernel = ctx.kernel_of(node, "triton")
        value = node.value
        if kernel is None or not (dataflow.is_pointer_cast(ctx, value) and dataflow.depends_on_load(ctx, value)):
            return
        name = node.targets[0].id
        if self._hinted(name, kernel, ctx) or not self._dereferenced(name, kernel, ctx):
            return
        yield Report(
            value,
            f"`{name}` is read from a pointer table and dereferenced with no alignment hint; if the "
            f"host guarantees it, say so with `{name} = tl.multiple_of({name}, 16)` so loads through it "
            "can be vectorised",
        )

    @staticmethod
    def _hinted(name: str, kernel, ctx) -> bool:
        """A hint names the pointer, or a pointer derived from it (``q = p.to(...)``, then
        ``tl.multiple_of(q, 16)``)."""
        names = {name} | {
            t.id for statement in subtree(kernel.node) if isinstance(statement, ast.Assign)
            and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(statement.value))
            for t in statement.targets if isinstance(t, ast.Name)
        }
        for call in subtree(kernel.node):
            if isinstance(call, ast.Call) and ctx.call_name(call) in HINTS and any(
                isinstance(n, ast.Name) and n.id in names for arg in call.args for n in ast.walk(arg)
            ):
                return True
        return False

    @staticmethod
    def _dereferenced(name: str, kernel, ctx) -> bool:
        """A load or store reads a block of elements through the pointer (a scalar access gains
        nothing from alignment)."""
        for call in subtree(kernel.node):
            for op in (LOAD, STORE):
                if ctx.is_call(call, op):
                    pointer = signature_argument(call, SIGNATURES[op], "pointer")
                    if (pointer is not None and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(pointer))
                            and dataflow.is_offset_vector(ctx, pointer)):
                        return True
        return False
