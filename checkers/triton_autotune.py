"""Triton autotuning rules: how autotuned kernels are launched, and kernels that should be tuned."""
from __future__ import annotations

import ast
import re

from kernelint.findings import Confidence, Severity
from kernelint.model import dataflow
from kernelint.model.reaching import value_at
from kernelint.rules import Report, Rule

_SEED = "cuTile→Triton conversion guide (seed 000)"
_TILE_NAME = re.compile(r"^(BLOCK|TILE)(_?SIZE)?(_[A-Z0-9]+)?$|^B[MNK]$")


def _triton_launches(ctx):
    return [
        launch for launch in ctx.launches
        if launch.style == "subscript" and launch.kernel is not None and launch.kernel.dsl == "triton"
    ]


class AutotuneMetaConflict(Rule):
    code = "KL107"
    name = "autotune-meta-conflict"
    family = "triton-autotune"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "crash"
    summary = "A launch passes a meta-parameter that the kernel's autotune configs or heuristics set."
    wants_finish = True
    doc = """
## What it does
Flags an argument, at the launch of an `@triton.autotune` kernel, for a parameter that one of the
autotune's `triton.Config`s sets (`BLOCK_M=128` in the launch while a config sets `BLOCK_M`).
Also flags a positional argument for a parameter that `@triton.heuristics` computes.

A keyword argument for a heuristic's parameter is not reported: the heuristic silently replaces
it, and real code does this on purpose, passing the very value the heuristic computes.

## Why is this bad?
The autotuner supplies every name in a config's dict itself. When the caller passes one too,
Triton refuses the launch with `ValueError: Conflicting meta-parameters: BLOCK_M. Make sure that
you don't re-define auto-tuned symbols.` (with a single config, or when the value is passed
positionally, the duplicate raises `TypeError: got multiple values for argument` instead).

## Example
```python
@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    ...

scale_kernel[grid](x, y, n, BLOCK=128)
```

## Use instead
```python
scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, n)
```
"""
    references = f"""
- {_SEED}, 'Advanced Triton patterns (cuTile → Triton)', section '2. Autotune + grid: `BLOCK_*`
  must come from `META`, not from the host'.
"""
    prior_evidence = """
On an H200 with triton 3.6.0, passing an autotuned meta-parameter at launch raised
`ValueError: Conflicting meta-parameters: BLOCK. Make sure that you don't re-define auto-tuned symbols.`
"""

    def finish(self, ctx):
        for launch in _triton_launches(ctx):
            kernel = launch.kernel
            configs = kernel.autotune.config_keys if kernel.autotune else set()
            if not configs and not kernel.heuristic_keys:
                continue
            for keyword in launch.node.keywords:
                if keyword.arg in configs:
                    yield Report(
                        keyword,
                        f"`{keyword.arg}` is set by the autotune configs of `{kernel.name}`; passing "
                        "it at launch fails with `ValueError: Conflicting meta-parameters`",
                    )
            for name, arg in launch.bound_arguments().items():
                if name not in launch.keywords and (name in configs or name in kernel.heuristic_keys):
                    source = "autotune configs" if name in configs else "`@triton.heuristics`"
                    yield Report(
                        arg,
                        f"`{name}` is set by the {source} of `{kernel.name}`; passing it positionally "
                        "fails with `TypeError: got multiple values for argument`",
                    )


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
- {_SEED}, 'Advanced Triton patterns (cuTile → Triton)', section '2. Autotune + grid: `BLOCK_*`
  must come from `META`, not from the host', and '4. Quick diagnosis table' (row 'Autotune "does
  nothing" / grid too large').
"""

    def finish(self, ctx):
        for launch in _triton_launches(ctx):
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


class FixedTilesNoAutotune(Rule):
    code = "KL202"
    name = "fixed-tiles-no-autotune"
    family = "triton-autotune"
    dsl = "triton"
    severity = Severity.WARNING
    confidence = Confidence.LOW
    default_enabled = False
    evidence_class = "perf"
    summary = "A `tl.dot` kernel without `@triton.autotune` launched with literal tile sizes."
    wants_finish = True
    doc = """
## What it does
Flags the launch of a Triton kernel that calls `tl.dot`, has tile-size constexpr parameters
(`BLOCK_M`, `BLOCK_SIZE_N`, `TILE_K`, `BM`, ...), is not decorated with `@triton.autotune` (or a
decorator of the project whose name says it autotunes), and receives a fixed integer for every
tile size (literals, module constants or defaults).

Tile sizes chosen per shape on the host (`BLOCK_M = 64 if M < 256 else 128`) are not reported.

The reference pair measured a real slowdown (see *Evidence*), so the severity is `warning`, but
the rule is **off by default**: the measured ratio shows how far one fixed choice (64x64x32, the
tutorial's) can be from the best config, and it is 1.0x when the fixed tiles happen to be the best
for the shape and GPU. On real code 1 of its 5 findings was a kernel for a non-NVIDIA backend
(`docs/precision.md`), below the 95% precision a default-on rule needs. Enable it with
`--extend-select KL202`.

## Why is this bad?
The best tile shape, warp count and pipeline depth depend on the GPU and the problem shape. One
hard-coded choice is usually tuned for one machine and one shape and leaves throughput on the
table elsewhere.

## Example
```python
matmul_kernel[grid](a, b, c, M, N, K, ..., BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
```

## Use instead
```python
@triton.autotune(configs=[
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=4),
], key=["M", "N", "K"])
@triton.jit
def matmul_kernel(...): ...

grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)
matmul_kernel[grid](a, b, c, M, N, K, ...)
```
"""
    references = f"""
- {_SEED}, 'Performance Gotchas — 10-50× Regression Risk', row 'Tile sizes' (claims 2-3x).
"""

    def finish(self, ctx):
        for launch in _triton_launches(ctx):
            kernel = launch.kernel
            if self._tuned(kernel) or not self._calls_dot(ctx, kernel):
                continue
            tiles = self._fixed_tiles(ctx, launch)
            if tiles:
                sizes = ", ".join(f"{name}={value}" for name, value in tiles)
                yield Report(
                    launch.node,
                    f"`{kernel.name}` runs `tl.dot` with fixed tile sizes ({sizes}) and no "
                    "`@triton.autotune`; tune tiles, warps and stages per shape",
                )

    @staticmethod
    def _tuned(kernel):
        """``@triton.autotune`` or a project's own autotuning wrapper (``@cache_autotune(...)``)."""
        return kernel.autotune is not None or any(
            "autotune" in ast.unparse(d.func if isinstance(d, ast.Call) else d).lower()
            for d in kernel.node.decorator_list
        )

    @staticmethod
    def _calls_dot(ctx, kernel):
        return any(
            dataflow.is_dot(ctx, node) and ctx.function_of(node) is kernel.node for node in ast.walk(kernel.node)
        )

    @staticmethod
    def _fixed_tiles(ctx, launch):
        """(name, int) for every tile-size constexpr of the kernel, or [] when one is not fixed."""
        kernel = launch.kernel
        constexprs = kernel.constexpr_names(ctx.qualname) - kernel.heuristic_keys
        arguments = launch.bound_arguments()
        arguments.update({k: v for k, v in _defaults(kernel.node).items() if k not in arguments})
        tiles = []
        for param in kernel.params:
            if param.arg in constexprs and _TILE_NAME.match(param.arg.upper()):
                value = arguments.get(param.arg)
                size = ctx.resolve_int(value) if value is not None else None
                if size is None:
                    return []
                tiles.append((param.arg, size))
        return tiles


def _defaults(function):
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    named = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    named.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return named
