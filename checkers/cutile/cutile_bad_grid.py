"""KL402 cutile-bad-grid: `ct.launch` with a grid that is not a tuple, or a tuple of more than 3
entries, fails at launch."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Edit, Fix, Severity
from kernelint.model.cutile.tiles import grid_forms
from kernelint.model.dsl import cutile
from kernelint.rules import Report, Rule


_ARTICLE = {"int": "an "}


def _one_tuple(grid: ast.expr) -> Fix:
    """``n`` -> ``(n,)`` at the launch: a 1-tuple grid, which cuTile pads to ``(n, 1, 1)``."""
    return Fix("Pass the block count as a 1-tuple", (
        Edit(grid.lineno, grid.col_offset, grid.lineno, grid.col_offset, "("),
        Edit(grid.end_lineno, grid.end_col_offset, grid.end_lineno, grid.end_col_offset, ",)"),
    ))


class CutileBadGrid(Rule):
    code = "KL402"
    name = "cutile-bad-grid"
    family = "cutile-launch"
    dsl = "cutile"
    severity = Severity.ERROR
    evidence_class = "crash"
    summary = "`ct.launch` with a grid that is not a tuple, or has more than 3 entries, fails at launch."
    node_types = ()
    wants_finish = True
    doc = """
## What it does
Flags a `ct.launch(stream, grid, kernel, args)` whose grid is provably not a tuple (an int such
as `ct.cdiv(n, TILE)`, a list, a Triton-style `lambda meta: (...)` or a function) or a tuple of
more than 3 entries. A name is followed to every assignment that may reach the launch, and the
rule reports only when all of them are wrong.

It stays silent on tuples of 1, 2 or 3 entries: cuTile pads shorter grids with 1s, and its own
samples launch with `(n,)` and `(m, n)`. A grid the source does not show (a parameter, a
helper's result, `x.shape`) is not reported.

## Why is this bad?
cuTile's launcher checks the grid before anything runs: anything but a tuple raises
`TypeError: Grid must be a tuple`, a longer tuple `ValueError: Grid dimensions must be at most 3`.
Code ported from Triton often keeps an int grid or a grid lambda, which Triton accepts. The check
runs on the host before the driver is touched, so even a machine without a GPU shows the error.

## Example
```python
grid = ct.cdiv(n, TILE)
ct.launch(torch.cuda.current_stream(), grid, add, (a, b, c, TILE))
```

## Use instead
```python
grid = (ct.cdiv(n, TILE),)
ct.launch(torch.cuda.current_stream(), grid, add, (a, b, c, TILE))
```
"""
    references = f"""
- {SEED}, 'Gotchas' table, row 'Grid' (its claim that grids must be 3-tuples does not hold: the
  launcher pads 1- and 2-tuples).
- cuTile's `ct.launch` documentation: "grid: Tuple of up to 3 grid dimensions".
"""

    def finish(self, ctx):
        for launch in ctx.launches:
            if launch.style != "cutile" or launch.grid is None:
                continue
            forms = grid_forms(ctx, launch.grid)
            if not forms:
                continue
            grid = short(launch.grid)
            if all(form.kind != "tuple" for form in forms):
                kinds = " or ".join(sorted({_ARTICLE.get(form.kind, "a ") + form.kind for form in forms}))
                message = f"grid `{grid}` is {kinds}, not a tuple: `ct.launch` raises `TypeError: Grid must be a tuple`"
                fix = None
                if all(form.kind == "int" for form in forms):
                    message += f"; write `({grid},)`"
                    fix = _one_tuple(launch.grid)
                yield Report(launch.grid, message, fix=fix)
            elif all(form.kind == "tuple" and form.length > cutile.MAX_GRID_DIMS for form in forms):
                length = max(form.length for form in forms)
                yield Report(launch.grid, f"grid `{grid}` has {length} entries: cuTile "
                                          f"grids have at most {cutile.MAX_GRID_DIMS}")
