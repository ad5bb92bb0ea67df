"""KL406 cutile-loop-variable-after-loop: a variable first assigned in a `for` loop of a cuTile
kernel is read after the loop; cuTile 1.1.0 and later refuse the kernel."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.dsl import cutile
from kernelint.model.dsl.versioning import parse_version
from kernelint.model.core.loop_bindings import loop_only_names
from kernelint.rules import Report, Rule

_STRICT = next(c for c in cutile.API_CHANGES if c.api == cutile.LOOP_FIRST_ASSIGNMENT_ERROR)
_TILE_FUNCTIONS = frozenset({cutile.KERNEL, cutile.FUNCTION})


class CutileLoopVariableAfterLoop(Rule):
    code = "KL406"
    name = "cutile-loop-variable-after-loop"
    family = "cutile-versions"
    dsl = "cutile"
    severity = Severity.ERROR
    default_enabled = False
    evidence_class = "compile"
    summary = ("A variable first assigned inside a `for` loop of a cuTile kernel is read after the loop: "
               "cuTile 1.1.0 and later refuse to compile it.")
    wants_finish = True
    doc = """
## What it does
Reports the first read, after a `for` loop, of a variable that a `@ct.kernel` or `@ct.function`
first assigns inside that loop (the loop variable included), when the targeted cuTile release is
1.1.0 or later (`--cuda-tile-version`, `cuda-tile-version` in `[tool.kernelint]`, the project's
pins, the installed `cuda-tile`, or the newest kernelint knows; the message names the one used).

It stays silent when the variable is assigned anywhere before the loop (on any branch), when it
is assigned again between the loop and the read, on `ct.static_iter(...)` loops (unrolled while
compiling), and when the target predates 1.1.0.

## Why is this bad?
The loop may run zero times, so the variable may be undefined after it. cuTile 1.1.0 made this a
type-checking error ("Stricter rules for potentially-undefined variable detection", cutile-python
CHANGELOG 1.1.0): `TypeCheckingError: Use of potentially undefined variable \\`t\\``, whatever the
trip count (measured with cuda-tile 1.7.0: `range(4)` and the loop variable itself are refused
too). Code written for 1.0 stops compiling on upgrade.

## Example
```python
@ct.kernel
def last_tile(x, out, n: ct.Constant[int]):
    bid = ct.bid(0)
    for i in range(n):
        t = ct.load(x, index=(bid * n + i,), shape=(16,))
    ct.store(out, index=(bid,), tile=t)
```

## Use instead
```python
    t = ct.zeros((16,), dtype=ct.float32)
    for i in range(n):
        t = ct.load(x, index=(bid * n + i,), shape=(16,))
    ct.store(out, index=(bid,), tile=t)
```
"""
    references = """
- NVIDIA/cutile-python CHANGELOG.md 1.1.0 (Enhancements: 'if a variable is first assigned inside a
  for loop, and then used after the loop, it is now an error because the loop may take zero
  iterations'); the check is in `cuda/tile/_ir/ir.py` of the 1.1.0 wheel and absent from 1.0.1's.
"""

    def finish(self, ctx):
        target = ctx.target("cutile")
        if not target.at_least(parse_version(_STRICT.version)):
            return
        for function in ctx.nodes(ast.FunctionDef):
            if not any(ctx.qualname(d.func if isinstance(d, ast.Call) else d) in _TILE_FUNCTIONS
                       for d in function.decorator_list):
                continue
            for found in loop_only_names(function):
                yield Report(
                    found.read,
                    f"`{found.name}` is first assigned in the `for` loop at line {found.loop.lineno} and read after "
                    f"it: cuTile {_STRICT.version} and later refuse the kernel (TypeCheckingError: Use of "
                    f"potentially undefined variable `{found.name}`), since the loop may run zero times; this code "
                    f"targets {target.describe()}; assign `{found.name}` before the loop",
                )
