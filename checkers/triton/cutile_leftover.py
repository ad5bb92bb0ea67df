"""KL109 cutile-leftover: cuTile API left in a Triton kernel or used to launch one."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Severity
from kernelint.model.dsl import cutile
from kernelint.rules import Report, Rule


class CutileLeftover(Rule):
    code = "KL109"
    name = "cutile-leftover"
    family = "triton-porting"
    dsl = "triton"
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "compile"
    summary = "cuTile API left in a Triton kernel, or a Triton kernel launched with `ct.launch`."
    node_types = (ast.Call, ast.arg)
    doc = """
## What it does
Flags what a cuTile-to-Triton port left behind: a `cuda.tile` call inside a `@triton.jit`
function (`ct.bid(0)`, `ct.arange(...)`, `ct.load(...)`, `ct.astype(...)`), a `ct.Constant[...]`
annotation on a `@triton.jit` parameter, and `ct.launch(stream, grid, kernel, args)` whose
kernel is a Triton kernel of the same file.

It stays silent on cuTile kernels (`@ct.kernel`) and on host code that uses cuTile for its own
kernels next to Triton ones.

## Why is this bad?
Triton compiles a `@triton.jit` function by reading its source: a call to a function that is not
a Triton builtin or another `@triton.jit` function is a compile error, and a `ct.Constant`
annotation does not make a parameter a Triton `tl.constexpr` (shapes built from it are then not
compile-time constants). `ct.launch` expects a cuTile kernel and cannot launch a Triton one.

## Example
```python
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: ct.Constant[int]):
    offs = ct.bid(0) * BLOCK + tl.arange(0, BLOCK)
    ...

ct.launch(stream, (grid, 1, 1), add_kernel, (x, y, out, n, 1024))
```

## Use instead
```python
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ...

add_kernel[(grid,)](x, y, out, n, BLOCK=1024)
```
"""
    references = f"""
- {SEED}, 'cuTile → Triton Gotchas' items 1, 7, 8 and 12, and the 'Gotchas' table rows 'Type
  cast', 'Grid' and 'Launch'.
"""

    def check(self, node, ctx):
        if isinstance(node, ast.arg):
            kernel = ctx.kernel_of(node, "triton")
            annotation = node.annotation
            if isinstance(annotation, ast.Subscript):
                annotation = annotation.value
            if kernel is not None and annotation is not None and ctx.qualname(annotation) in cutile.CONSTEXPR_ANNOTATIONS:
                yield Report(node, f"`{node.arg}` of Triton kernel `{kernel.name}` is annotated with cuTile's "
                                   f"`{short(node.annotation)}`: use `tl.constexpr`")
            return
        name = ctx.call_name(node)
        if name is None or not name.startswith(cutile.CT):
            return
        if name == cutile.LAUNCH:
            launch = ctx.launch_at(node)
            if launch is not None and launch.kernel is not None and launch.kernel.dsl == "triton":
                yield Report(node, f"`ct.launch` launches Triton kernel `{launch.kernel.name}`: launch it "
                                   f"with `{launch.kernel.name}[grid](...)`")
            return
        kernel = ctx.kernel_of(node, "triton")
        if kernel is not None:
            yield Report(node, f"cuTile call `{short(node)}` in Triton kernel `{kernel.name}`: Triton cannot "
                               f"compile it; use the `triton.language` equivalent")
