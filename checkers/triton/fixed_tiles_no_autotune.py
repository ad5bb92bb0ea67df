"""KL202 fixed-tiles-no-autotune: A `tl.dot` kernel without `@triton.autotune` launched with
literal tile sizes."""
from __future__ import annotations

import ast
import re

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Confidence, Severity
from kernelint.model.core import dataflow
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree

_TILE_NAME = re.compile(r"^(BLOCK|TILE)(_?SIZE)?(_[A-Z0-9]+)?$|^B[MNK]$")


class FixedTilesNoAutotune(Rule):
    code = "KL202"
    name = "fixed-tiles-no-autotune"
    family = "triton-autotune"
    dsl = "triton"
    severity = Severity.INFO
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

The reference pair is a fair race (issue 24): the bad kernel fixes its tile to one of the good
kernel's autotune configs (128x256x64, 8 warps, 3 stages), with that config's warps and stages.
On the H200 that tile is the fastest of the four on the three large shapes (0.97-0.99x) and loses
1.35x and 1.67x on the two small-output ones (512x4096x4096 and 1024x1024x8192: 64 and 32 tiles
of 128x256 leave half or more of the 132 SMs idle): median 0.99x, so the seed's "2-3x" does not reproduce and
the rule is `info`, **off by default** (see *Evidence*; the per-config times are in
`reference_kernels/evidence/runs/2026-12-01-h200-issue24-KL202-config-sweep.json`). The earlier
2.22x compared the smallest config (64x64x32) against autotune: it measured a poor fixed choice,
not the cost of fixing one. On real code 1 of its 5 findings was a kernel for a non-NVIDIA
backend (`docs/precision.md`). Enable it with `--extend-select KL202`.

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
- {SEED}, 'Performance Gotchas — 10-50× Regression Risk', row 'Tile sizes' (claims 2-3x).
"""

    def finish(self, ctx):
        for launch in ctx.launches_of("triton"):
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
            dataflow.is_dot(ctx, node) and ctx.function_of(node) is kernel.node for node in subtree(kernel.node)
        )

    @staticmethod
    def _fixed_tiles(ctx, launch):
        """(name, int) for every tile-size constexpr of the kernel, or [] when one is not fixed."""
        kernel = launch.kernel
        constexprs = kernel.constexpr_names(ctx.qualname) - kernel.heuristic_keys
        arguments = launch.bound_arguments()
        arguments.update({k: v for k, v in kernel.defaults().items() if k not in arguments})
        tiles = []
        for param in kernel.params:
            if param.arg in constexprs and _TILE_NAME.match(param.arg.upper()):
                value = arguments.get(param.arg)
                size = ctx.resolve_int(value) if value is not None else None
                if size is None:
                    return []
                tiles.append((param.arg, size))
        return tiles

