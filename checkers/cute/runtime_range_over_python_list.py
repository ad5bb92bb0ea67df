"""KL306 runtime-range-over-python-list: a Python list or tuple indexed by the variable of a
traced (`range` / `cutlass.range`) loop."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.static import builds_python_list, loop_kind, loop_variables
from kernelint.model.dsl.cute import CONSTEXPR_ANNOTATIONS
from kernelint.rules import Report, Rule


class RuntimeRangeOverPythonList(Rule):
    code = "KL306"
    name = "runtime-range-over-python-list"
    family = "cute-tracing"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "compile"
    summary = "A Python list or tuple indexed by the variable of a `range`/`cutlass.range` loop: the index is a run-time value."
    node_types = (ast.Subscript,)
    doc = """
## What it does
Reports `seq[i]` in a `@cute.jit` / `@cute.kernel` function where `i` is the variable of an
enclosing `for i in range(...)` or `cutlass.range(...)` loop and `seq` is shown to be a Python
list or tuple: a display, a comprehension, `list(...)` / `tuple(...)`, through a local or
module-level name or a `self.<attr>` the kernel class sets once. Loops over
`cutlass.range_constexpr(...)` and over other iterables are Python loops and are not reported,
nor are subscripts of tensors and other objects.

## Why is this bad?
CuTe DSL turns `range` and `cutlass.range` loops into loops of the generated kernel: the loop
variable is a run-time integer, not a Python int. A Python list lives only while the kernel is
traced, so it cannot be indexed by a value known only when the kernel runs; tracing stops with
a type error. `cutlass.range_constexpr` unrolls the loop while tracing, so each iteration sees
a Python int.

## Example
```python
offsets = [0, 64, 128]
for i in cutlass.range(3):
    acc += x[offsets[i]]
```

## Use instead
```python
for i in cutlass.range_constexpr(3):
    acc += x[offsets[i]]
```
"""
    references = (
        "CuTe DSL kernel skill, 'Static vs dynamic' (`cutlass.range_constexpr` is required when "
        "the body indexes Python lists or tuples)."
    )

    def check(self, node: ast.Subscript, ctx):
        if ctx.kernel_of(node, "cute") is None:
            return
        names = {n.id for n in ast.walk(node.slice) if isinstance(n, ast.Name)}
        if not names:
            return
        for loop in ctx.loops_of(node):
            if loop_kind(loop) != "dynamic" or not names & loop_variables(loop):
                continue
            sequence = builds_python_list(ctx, node.value)
            constexpr = None if sequence is not None else _constexpr_parameter(ctx, node.value)
            if sequence is None and constexpr is None:
                return
            variable = sorted(names & loop_variables(loop))[0]
            if constexpr is not None:
                what = f"`Constexpr` parameter `{constexpr.arg}` (a Python value while tracing)"
            else:
                what = f"Python {'tuple' if isinstance(sequence, ast.Tuple) or _is_tuple_call(sequence) else 'list'} " \
                       f"`{ast.unparse(node.value)}`"
            yield Report(
                node,
                f"{what} indexed by `{variable}`, the variable of a run-time loop; "
                "use `cutlass.range_constexpr` to unroll the loop while tracing",
            )
            return


def _is_tuple_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "tuple"


def _constexpr_parameter(ctx, value: ast.expr) -> ast.arg | None:
    """The ``cutlass.Constexpr`` parameter ``value`` names (``offsets: cutlass.Constexpr``): a
    Python object at trace time, so subscripting it needs an index known while tracing (the seed's
    form: a Constexpr list of offsets indexed in a ``cutlass.range`` loop)."""
    if not isinstance(value, ast.Name):
        return None
    definitions = ctx.definitions(value.id, value)
    if len(definitions) != 1 or definitions[0].kind != "param" or not isinstance(definitions[0].node, ast.arg):
        return None
    arg = definitions[0].node
    annotation = arg.annotation.value if isinstance(arg.annotation, ast.Subscript) else arg.annotation
    return arg if annotation is not None and ctx.qualname(annotation) in CONSTEXPR_ANNOTATIONS else None
