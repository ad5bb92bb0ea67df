"""KL126 grid-axis-over-65535: grid axis 1 or 2 set to a product of input sizes (`B * H`), which
CUDA refuses to launch past 65535."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Confidence, Severity
from kernelint.grouping import project_cause
from kernelint.model.index import grid
from kernelint.rules import Because, Report, Rule
from kernelint.model.core.walk import subtree

#: CUDA's largest gridDim.y / gridDim.z (axis 0 allows 2**31 - 1).
AXIS_LIMIT = 65535


class GridAxisOver65535(Rule):
    code = "KL126"
    name = "grid-axis-over-65535"
    family = "triton-launch"
    dsl = "triton"
    also_dsls = ("cutile", "cute")
    severity = Severity.ERROR
    #: The limit is certain; whether a project's inputs ever reach it is not (dense training
    #: batches rarely do, packed varlen and decode batches do).
    confidence = Confidence.MEDIUM
    evidence_class = "crash"
    summary = ("Grid axis 1 or 2 is a product of input sizes (`B * H`) or a value read from the data: "
               "past 65535 programs the launch fails with 'invalid argument'.")
    wants_finish = True
    doc = """
## What it does
Flags a launch whose grid puts, on axis 1 or 2, a size that grows with the input without a
bound: a product of sizes read from the input tensors where one of them is per call (`B * H`
with `B, T, H, K = q.shape`, `N * HV` with `N = len(cu_seqlens) - 1`, `batch * nchunks`), the
rows of a tensor flattened to its last dimension (`x_2d = x.view(-1, x.shape[-1]); M, N =
x_2d.shape`, `*batch, N = x.shape; M = x.numel() // N`: every leading dimension multiplied, a
token count, one program per row), or a value read from the data (`lengths.max().item()`). One
launch-grid model serves Triton
(`kernel[grid](...)`), cuTile (`ct.launch(stream, grid, kernel, args)`) and CuTe DSL
(`kernel(...).launch(grid=[...])`): the grid is read as a tuple, a name bound to one, a
`lambda META: (...)` or a grid function, and each axis becomes a symbolic host size
(`kernelint/model/project/shapes.py`, `kernelint/model/index/grid.py`) followed through
names, `triton.cdiv`/`math.ceil(a / b)`, `min`/`max` and the callers of the wrapper. The
message names the inputs that break it ("fails when B × H > 65,535").

It stays silent on axis 0 (its limit is 2^31 - 1; on the corpus every grid that could pass it
was one program per index or row), on products of model dimensions and their tile counts
(`NK * NV`, `cdiv(out_h, BH) * cdiv(out_w, BW)`: no per-call size), on products with a single
runtime size (`NT * NC` with a constant `NC`), on one size divided by a tile
(`triton.cdiv(B * T, 128)`, `triton.cdiv(M, 128)` of flattened rows), on a single dimension read
alone (`B`, `T`, `H` from `q.shape`: nothing in the code tells a sequence length or token count
from a batch size or a head count, and most such axes on the corpus are batches or heads), on
values the host caps (`min(B * H, 65535)`), on host parameters
whose callers cannot be read, and when the launching function compares anything with 65535 or
65536 (a host-side check or split).

## Why is this bad?
CUDA limits `gridDim.y` and `gridDim.z` to 65535 blocks. Triton passes the grid to the driver as
given, so once batch x heads (or sequences x heads in a varlen batch) passes 65535 the launch is
refused and PyTorch users see `RuntimeError: Triton Error [CUDA]: invalid argument`, an error
that names neither the grid nor the limit. It works in every test with small batches and fails
in production: flash-linear-attention hit it with `grid = (NK, NV, B * H)` at about 11,000
sequences of 6 heads, then again in its gated-delta state kernels at 2,050 sequences x 32 heads
during continuous-batching serving, and then audited the whole decode path for the same
pattern; unsloth had to back-port the fix to its vendored copy (Qwen3-Next's 32 value heads cap
a packed batch at 2,047 sequences). Triton's own block-sparse op put the number of non-zero
blocks on axis 1 and failed the same way for large language models.

## Example
```python
B, T, H, K = k.shape
grid = (NK, NV, B * H)
fused_recurrent_fwd_kernel[grid](q, k, v, o, T, H=H, K=K, V=V, BK=BK, BV=BV)
```

## Use instead
Put the large product on axis 0 and split it in the kernel:
```python
grid = (B * H * NV * NK,)           # kernel: i_bh, i_v, i_k from tl.program_id(0)
```
or swap axes so the product is axis 0 (`grid = (B * H, NV, NK)`), or loop over the excess
inside the kernel.

## Versions
Measured on the H200 with triton 3.6.0: 4100 x 16 = 65,600 programs on axis 1 fail with
`RuntimeError: Triton Error [CUDA]: invalid argument`; the same kernel with the product on axis
0 runs and matches. Triton 3.9.0 still hands the grid to `cuLaunchKernelEx` unchanged, so the
rule applies to every Triton version seen. `TRITON_INTERPRET=1` has no grid limit: CPU tests do
not catch it.
"""
    references = """
- triton-lang/triton #3299 ("Invalid Argument Error when Grid Dimension too Large": a batch-size
  grid axis), triton-lang/triton PR #1491 (block-sparse op: axis 1 moved to axis 0).
- fla-org/flash-linear-attention #172 (`B * H` on axis 2), PR #1077 (state kernels flattened onto
  axis 0) and #1096 (audit of the decode path); unslothai/unsloth-zoo PR #1092 (the back-port).
- Triton 3.9.0 source (`backends/nvidia/driver.c`): the grid goes to `cuLaunchKernelEx` as
  `gridDimY`/`gridDimZ` unchanged; nothing splits or checks it. The CPU interpreter has no limit,
  so `TRITON_INTERPRET=1` runs such a launch without error.
- cuTile: the rule's second pair, `reference_kernels/cutile/KL126_grid_axis_over_65535` (the
  same mean over T launched with `ct.launch`), on the H200, cuda-tile 1.7.0: the bad launch fails
  before the driver with `ValueError: Grid[1] is too big: max=65535, got=65536` (and 65,600);
  axis 1 at 65,535 runs; the good kernel matches within 6e-8 (record
  `reference_kernels/evidence/KL126-cutile.json`, shown under Evidence; run
  `reference_kernels/evidence/runs/2026-12-01-h200-issue20-KL126-cutile.json` and its log,
  provenance in `reference_kernels/evidence/runs/KL126-cutile/`).
"""

    def finish(self, ctx):
        reported: set[int] = set()
        for dsl in self.dsls():
            for launch in ctx.launches_of(dsl, imported=True):
                if launch.grid is None or _checks_limit(ctx, launch.node):
                    continue
                for axes in grid.grid_axes(ctx, launch):
                    for axis in axes:
                        if id(axis.node) in reported:
                            continue
                        found = grid.breach(axis)
                        if found is None:
                            continue
                        reported.add(id(axis.node))
                        yield Report(axis.node, _message(launch, axis, found), cause=_cause(ctx, found),
                                     facts=(Because(f"grid axis {axis.axis} of `{launch.kernel.name}` = "
                                                    f"`{short(axis.node, 60)}`", axis.node),
                                            *_facts(ctx, found),
                                            Because(f"fails when {found.condition()}; nothing in the "
                                                    "launching function compares a value with 65535")))


def _cause(ctx, found: grid.Breach) -> str:
    """The product that passes the limit, and the files its sizes are read in: launches that put
    the same product of the same reads on a narrow axis are one cause, in one file or several
    (mamba's `ssd_chunk_scan.py` puts `batch * nchunks` on axis 1 in eleven launches; fla's
    `chunk_gla_fwd_intra_gk` launches four kernels on `(NK, NT, B * H)`; a wrapper module that
    reads `B, H` and calls launchers in two modules): the decision to flatten it onto axis 0 is
    one. Sizes read in different files are different causes, so two modules that each read
    their own `B * H` stay two findings."""
    kind = "read from the data" if found.data_dependent else ("flattened rows" if found.rows else "input sizes")
    what = f"axis {'0' if found.axis == 0 else '1/2'}, {kind}: {' × '.join(sorted(found.factors))}"
    files = sorted({ctx.project.display_path(where.rpartition(":")[0]) for _, where in found.sources})
    return project_cause(", ".join(files), what) if files and all(files) else what


def _message(launch, axis, found: grid.Breach) -> str:
    entry = short(axis.node)
    kernel = launch.kernel.name
    where = "read from the data" if found.data_dependent else (
        "the rows of a tensor flattened to its last dimension (every leading dimension multiplied: "
        "batch × sequence, a token count)" if found.rows else "a product of input sizes")
    return (f"grid axis {axis.axis} of `{kernel}` is `{entry}`, {where}: the launch fails when "
            f"{found.condition()} (CUDA refuses axes 1 and 2 past 65,535, 'invalid argument'); "
            f"put it on axis 0")


def _facts(ctx, found: grid.Breach) -> tuple[Because, ...]:
    """Where each host size of the breach is read (the path relative to the project root)."""
    return tuple(Because(f"`{label}` is read at {_shown(ctx, where)}", None) for label, where in found.sources)


def _shown(ctx, where: str) -> str:
    path, _, line = where.rpartition(":")
    return f"{ctx.project.display_path(path)}:{line}" if path else where


def _checks_limit(ctx, node: ast.AST) -> bool:
    """True when the function around ``node`` compares a value with 65535/65536: the author
    guards or splits the grid."""
    function = ctx.function_of(node)
    scope = function if function is not None else ctx.tree
    for compare in subtree(scope):
        if isinstance(compare, ast.Compare):
            for operand in (compare.left, *compare.comparators):
                if ctx.resolve_int(operand) in (AXIS_LIMIT, AXIS_LIMIT + 1):
                    return True
    return False
