"""KL305 dynamic-if-on-constexpr: an `if` on a compile-time value without `cutlass.const_expr`,
which CuTe DSL traces as a run-time branch (both sides)."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.static import compile_time_atom, constexpr_parameters, is_const_expr
from kernelint.model.dsl import cute
from kernelint.model.dsl.versioning import parse_version

_TRACED_AT_RUN_TIME = next(c for c in cute.API_CHANGES if c.api == cute.IF_TRACED_AT_RUN_TIME)
from kernelint.rules import Report, Rule


class DynamicIfOnConstexpr(Rule):
    code = "KL305"
    name = "dynamic-if-on-constexpr"
    family = "cute-tracing"
    dsl = "cute"
    severity = Severity.WARNING
    default_enabled = False
    evidence_class = "compile"
    summary = "`if` on a `Constexpr`, an `is None` test or `.element_type` without `cutlass.const_expr(...)`: both branches are traced."
    node_types = (ast.If,)
    doc = """
## What it does
Reports an `if` (or `elif`) in a `@cute.jit` / `@cute.kernel` function whose test is decided
while the kernel is traced, yet is not wrapped in `cutlass.const_expr(...)`: a test built only
from `cutlass.Constexpr` parameters, `x is None` / `x is not None`, the compile-time attributes
`.element_type` and `.memspace`, `cutlass` names (`cutlass.Float16`) and literals. A test that
involves any run-time value (`tidx == 0`, a loaded value, a `self` attribute) is left alone,
and so are conditional expressions (`a if p else b`), which CuTe DSL decides in Python.

Off by default, from the evidence. The pair (`if bias is not None:` on a `Constexpr` that is
None) fails to compile on the H200 with `TypeError: 'NoneType' object is not subscriptable`,
and `cutlass.const_expr` fixes it. But in the CuTe DSL code of CUTLASS's examples,
flash-attention and flashinfer the rule finds 53 such `if`s that all compile, because both of
their branches trace with either value (`if enable_pdl:`, `if USE_CU_SEQLENS:`): the dead
branch costs trace time and predicated code, not a failure. Turn the rule on
(`--select KL305`) to keep compile-time branches explicit.

Version scope: from CuTe DSL 4.1.0 ('while/if now by default generates codes and executes at
runtime unless cutlass.const_expr is specified', cute_dsl_api/changelog.rst); on an older target
(`--cutlass-dsl-version`, `cutlass-dsl-version`, the project's pins) the rule is silent.

## Why is this bad?
The CuTe DSL preprocessor turns every plain `if` in a jit function into a run-time branch and
traces both sides, whatever the test's value. When the test is a compile-time fact that guards
code valid only in one case (`if bias is not None: x += bias[i]`, `if a.element_type ==
cutlass.Float8E4M3FN: ...`), the other side is traced with values it cannot handle and the
kernel fails to compile; where both sides trace, the kernel carries the dead side as predicated
code. `cutlass.const_expr(test)` makes the preprocessor keep a Python `if`, so only the taken
side is traced.

## Example
```python
@cute.kernel
def add_bias(x: cute.Tensor, out: cute.Tensor, bias: cutlass.Constexpr):
    value = x[i]
    if bias is not None:
        value = value + bias[i]
```

## Use instead
```python
    if cutlass.const_expr(bias is not None):
        value = value + bias[i]
```
"""
    references = (
        "CuTe DSL kernel skill, 'Static vs dynamic' (`cutlass.const_expr` guards compile-time "
        "branches, `is None` tests on Constexpr values); cutlass #3213 (an `if` on "
        "`.element_type` without `const_expr`)."
    )

    def check(self, node: ast.If, ctx):
        kernel = ctx.kernel_of(node, "cute")
        if kernel is None or is_const_expr(ctx, node.test):
            return
        target = ctx.target("cute")
        if not target.at_least(parse_version(_TRACED_AT_RUN_TIME.version)):
            return  # before 4.1.0 an `if` on a Python value was decided while tracing
        atom = compile_time_atom(ctx, node.test, constexpr_parameters(ctx, kernel.node))
        if atom is None:
            return
        yield Report(
            node.test,
            f"`if` on a compile-time value (`{ast.unparse(atom)}`) without `cutlass.const_expr(...)`; "
            f"CuTe DSL {_TRACED_AT_RUN_TIME.version} and later trace both branches as a run-time branch "
            f"(this code targets {target.describe()}): wrap the test in `cutlass.const_expr`",
        )
