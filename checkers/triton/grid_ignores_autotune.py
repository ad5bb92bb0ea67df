"""KL108 grid-ignores-autotune: An autotuned kernel's grid is computed from a host-side tile size
instead of `META`."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Confidence, Severity
from kernelint.model import dataflow
from kernelint.model.reaching import value_at
from kernelint.rules import Report, Rule


class GridIgnoresAutotune(Rule):
    code = "KL108"
    name = "grid-ignores-autotune"
    family = "triton-autotune"
    dsl = "triton"
    severity = Severity.ERROR
    confidence = Confidence.MEDIUM
    evidence_class = "numerics"
    summary = "An autotuned kernel's grid is computed from a host-side tile size instead of `META`."
    wants_finish = True
    doc = """
## What it does
Flags the launch of an `@triton.autotune` kernel whose grid is computed from a host variable or
host argument named like a tile size the autotune configs set (`BLOCK_M`), instead of from the
`META` dict the grid callable receives. Names computed from such a variable
(`num_blocks = triton.cdiv(n, BLOCK)`) are followed.

## Why is this bad?
The kernel runs with the tile size of the chosen config, but the number of programs was fixed on
the host. When the config's tile is smaller than the host value, part of the output is never
computed; when it is larger, programs are wasted on empty tiles and the tuning result is
meaningless.

## Example
```python
BLOCK = 256
grid = (triton.cdiv(n, BLOCK),)
scale_kernel[grid](x, y, n)      # configs tile BLOCK = 64 or 128: half the output is skipped
```

## Use instead
```python
grid = lambda META: (triton.cdiv(n, META["BLOCK"]),)
scale_kernel[grid](x, y, n)
```
"""
    references = f"""
- {SEED}, 'Advanced Triton patterns (cuTile → Triton)', section '2. Autotune + grid: `BLOCK_*`
  must come from `META`, not from the host', and '4. Quick diagnosis table' (row 'Autotune "does
  nothing" / grid too large').
"""

    def finish(self, ctx):
        for launch in ctx.launches_of("triton"):
            autotune = launch.kernel.autotune
            if autotune is None or launch.grid is None:
                continue
            passed = set(launch.bound_arguments())
            tuned = {key.upper(): key for key in autotune.config_keys - passed}
            for name, how in self._host_tile_names(ctx, launch.grid, tuned):
                yield Report(
                    launch.grid,
                    f"the grid of autotuned `{launch.kernel.name}` uses `{name}` ({how}), but the "
                    f"autotune configs choose `{tuned[name.upper()]}`: compute the grid from "
                    f"`META['{tuned[name.upper()]}']` in a `lambda META: ...` grid",
                )
                break

    @staticmethod
    def _host_tile_names(ctx, grid, tuned):
        """Names in the grid (or feeding it) that hold a fixed host value of a tuned key."""
        found = []

        def record(node):
            if isinstance(node, ast.Name) and node.id.upper() in tuned and isinstance(node.ctx, ast.Load):
                how = GridIgnoresAutotune._fixed_value(ctx, node)
                if how is not None:
                    found.append((node.id, how))
            return False

        value = value_at(ctx, grid) if isinstance(grid, ast.Name) else grid
        if isinstance(value, ast.Lambda):
            value = value.body
        if value is not None:
            dataflow.reaches(ctx, value, record)
        return found

    @staticmethod
    def _fixed_value(ctx, name):
        """How ``name`` is fixed on the host: a resolvable int, or a host function's argument."""
        value = ctx.resolve_int(name)
        if value is not None:
            return f"= {value}"
        definitions = ctx.definitions(name.id, name)
        if len(definitions) == 1 and definitions[0].kind == "param":
            function = ctx.parent(ctx.parent(definitions[0].node))
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and ctx.kernel_of(name) is None:
                return f"an argument of `{function.name}`"
        return None

