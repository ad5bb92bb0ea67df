"""KL108 grid-ignores-autotune: An autotuned kernel's grid is computed from a host-side tile size
instead of `META`."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Confidence, Severity
from kernelint.model.core import dataflow
from kernelint.model.index import programs
from kernelint.model.core.reaching import value_at
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

It also flags a grid that never reads `META` at all (a tuple, or a grid function that ignores
its argument), whatever host value it came from (a constant under another name, a config dict,
an SM count), when the kernel is not persistent and scales its program index by a tuned
constexpr (`tl.program_id(0) * BLOCK_SIZE`): one program per tile of the tuned size.

It stays silent for persistent kernels, which loop over tiles by the program count
(`range(pid, n_tiles, tl.num_programs(0))`, `tl.range(start_pid, num_tiles, NUM_SMS)`), for
kernels whose program index is not scaled by a tuned size (one row per program), and for grids
read from the autotuner's choice (`kernel.best_config`).

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
            reported = False
            for name, how in self._host_tile_names(ctx, launch.grid, tuned):
                yield Report(
                    launch.grid,
                    f"the grid of autotuned `{launch.kernel.name}` uses `{name}` ({how}), but the "
                    f"autotune configs choose `{tuned[name.upper()]}`: compute the grid from "
                    f"`META['{tuned[name.upper()]}']` in a `lambda META: ...` grid",
                )
                reported = True
                break
            key = None if reported else self._tile_key_of_fixed_grid(ctx, launch, set(tuned.values()))
            if key is not None:
                yield Report(
                    launch.grid,
                    f"the grid of autotuned `{launch.kernel.name}` is fixed on the host, but each "
                    f"program handles `tl.program_id * {key}` and the autotune configs choose "
                    f"`{key}`: compute the grid from `META['{key}']` in a `lambda META: ...` grid",
                )

    @staticmethod
    def _tile_key_of_fixed_grid(ctx, launch, tuned_keys):
        """The tuned key that scales the program index in a non-persistent kernel whose grid never
        reads META (a tuple, or a callable that ignores its argument); None otherwise."""
        # The grid is read first: most autotuned launches compute it from META, and then the
        # kernel's program scalings (a walk of every address) need not be found.
        if not tuned_keys or not GridIgnoresAutotune._ignores_meta(ctx, launch.grid):
            return None
        kernel = launch.kernel
        constexprs = kernel.constexpr_names(ctx.qualname)
        keys = [
            size.id for _, size in programs.program_scalings(ctx, kernel)
            if size.id in tuned_keys and size.id in constexprs
        ]
        if not keys:
            return None
        if programs.is_persistent(ctx, kernel):
            return None
        return keys[0]

    @staticmethod
    def _ignores_meta(ctx, grid):
        """The grid is certainly computed without the META dict: a tuple or list (directly or
        through one assignment), or a lambda/function that never reads its parameter. Grids
        read from the autotuner (``kernel.best_config``) are tuned values, not fixed ones."""
        value = value_at(ctx, grid) if isinstance(grid, ast.Name) else grid
        if isinstance(grid, ast.Name) and value is None:
            definitions = ctx.definitions(grid.id, grid)
            if len(definitions) == 1 and isinstance(definitions[0].node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                value = definitions[0].node
        if isinstance(value, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [a.arg for a in (*value.args.posonlyargs, *value.args.args, *value.args.kwonlyargs)]
            if value.args.vararg or value.args.kwarg:
                return False
            body = [value.body] if isinstance(value, ast.Lambda) else value.body
            reads = {n.id for part in body for n in ast.walk(part) if isinstance(n, ast.Name)}
            return bool(params) and not reads & set(params)
        if not isinstance(value, (ast.Tuple, ast.List)):
            return False
        return dataflow.reaches(
            ctx, value, lambda n: isinstance(n, ast.Attribute) and n.attr in ("best_config", "cache")
        ) is None

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

