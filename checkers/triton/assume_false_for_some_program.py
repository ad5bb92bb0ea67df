"""KL130 assume-false-for-some-program: ``tl.assume`` of a program index being positive, false in the first program."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.dsl import triton
from kernelint.model.index.programs import zero_for_first_program
from kernelint.rules import Report, Rule


def _claims_nonzero(ctx, test: ast.expr) -> ast.expr | None:
    """The operand ``test`` claims is not 0: ``x > 0``, ``x >= 1``, ``x != 0``, ``0 < x``, ``1 <= x``."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    bound = ctx.resolve_int(right)
    if (isinstance(op, ast.Gt) and bound == 0) or (isinstance(op, ast.GtE) and bound == 1) or (
            isinstance(op, ast.NotEq) and bound == 0):
        return left
    bound = ctx.resolve_int(left)
    if (isinstance(op, ast.Lt) and bound == 0) or (isinstance(op, ast.LtE) and bound == 1) or (
            isinstance(op, ast.NotEq) and bound == 0):
        return right
    return None


class AssumeFalseForSomeProgram(Rule):
    code = "KL130"
    name = "assume-false-for-some-program"
    family = "triton-correctness"
    dsl = "triton"
    severity = Severity.ERROR
    default_enabled = True
    evidence_class = "numerics"
    summary = ("`tl.assume(pid > 0)` on a program index that is 0 in the first program: undefined behaviour "
               "the compiler uses to drop that program's guards.")
    node_types = (ast.Call,)
    calls = frozenset({triton.ASSUME})
    doc = """
## What it does
Flags `tl.assume(x > 0)` (also `x >= 1`, `x != 0`, `0 < x`) in a Triton kernel where `x` is 0 in
the first program: `tl.program_id(...)` itself, or a value computed from it that is 0 when the
program ids are 0: `pid // num_pid_n`, `pid % num_pid_n`, the grouped-ordering
`first_pid_m + (pid % num_pid_in_group) % group_size_m`, a persistent loop's
`for tile_id in range(pid, num_tiles, NUM_SMS)`.

It stays silent on `tl.assume(pid >= 0)` (true everywhere, and the form the hint is meant for),
on assumptions about strides and sizes (`tl.assume(stride_am > 0)`: whether a caller can pass a
zero stride is a fact about the host code), on values it cannot follow (a helper's return, a
parameter), and on an assumption inside an `if` or `while` (the branch may exclude the first
program).

## Why is this bad?
`tl.assume(c)` tells the compiler `c` holds in every program; it becomes an LLVM `assume`, and a
false one is undefined behaviour. The compiler folds what follows from it: with
`tl.assume(pid > 0)` a guard `mask=pid > 0` becomes always true, so the first program reads the
element before the buffer (the PTX of such a kernel sets the guard's predicate to a constant);
`pid == 0` branches and `pid * BLOCK - 1` bounds checks vanish the same way. The kernel is
right on every tile but the first, which is what tests with one tile miss.

Measured on the H200 (Triton 3.6, the record below): with `tl.assume(pid > 0)` the first
program's `mask=pid > 0` load ran anyway and read the element before the sequence, so the first
output was off by 3.87 in all 3 sizes; with `tl.assume(pid >= 0)` the output was exact.

## Example
```python
pid = tl.program_id(0)
tl.assume(pid > 0)
carry = tl.load(x_ptr + pid * BLOCK - 1, mask=pid > 0, other=0.0)
```

## Use instead
```python
pid = tl.program_id(0)
tl.assume(pid >= 0)
carry = tl.load(x_ptr + pid * BLOCK - 1, mask=pid > 0, other=0.0)
```
"""
    references = """
- GitHub issue 23 item 12: `tl.assume(pid_m > 0)` / `tl.assume(pid_n > 0)` after grouped or
  `pid // num_pid_n` tile orderings, repeated across the GEMM kernels of ROCm/aiter (and forks);
  ROCm/aiter PR #5428 (stride assumptions).
- triton-lang/triton `python/triton/language/core.py` `assume`: lowered to `llvm.assume`.
"""

    def check(self, node, ctx):
        if ctx.call_name(node) != triton.ASSUME or not node.args or ctx.kernel_of(node, "triton") is None:
            return
        if any(isinstance(a, (ast.If, ast.While, ast.IfExp)) for a in _ancestors_in_function(ctx, node)):
            return
        operand = _claims_nonzero(ctx, node.args[0])
        if operand is None or not zero_for_first_program(ctx, operand):
            return
        yield Report(node, f"`tl.assume({short(node.args[0])})` is false in the first program, where "
                           f"`{short(operand)}` is 0: undefined behaviour the compiler uses to drop that "
                           f"program's guards; assume `{short(operand)} >= 0`")


def _ancestors_in_function(ctx, node):
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        yield ancestor
