"""KL404 cutile-partial-tile-reduction-without-padding: a `ct.load` of a tile that can reach past
the array, with no `padding_mode=`, feeding a sum, max or min over the axis it overhangs."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.core.calls import argument, signature_argument
from kernelint.model.cutile.tiles import elementwise_loads, partial_axes, reduced_axes, tile_function_of, tile_shape
from kernelint.model.dsl import cutile
from kernelint.rules import Report, Rule


class CutilePartialTileReductionWithoutPadding(Rule):
    code = "KL404"
    name = "cutile-partial-tile-reduction-without-padding"
    family = "cutile-numerics"
    dsl = "cutile"
    # Reproduced on the H200 (numerics); off until a corpus finding measures its precision.
    severity = Severity.ERROR
    default_enabled = False
    evidence_class = "numerics"
    summary = ("A `ct.load` of a tile that can reach past the array has no `padding_mode=` and feeds a "
               "sum/max/min over that axis: the tail lanes hold undetermined values and enter the result.")
    wants_finish = True
    doc = """
## What it does
Reports a `ct.load(...)` in cuTile tile code that has no `padding_mode=` when its tile's values
reach `ct.sum`, `ct.max`, `ct.min`, `ct.argmax`, `ct.argmin` or `ct.prod` element by element
(through names, arithmetic, `astype`, `ct.exp`-style elementwise functions) and the reduction
runs over an axis along which the source shows that the tile can extend past the array:

- the load's index on that axis is the variable of a loop over a rounded-up tile count,
  `for j in range(ct.cdiv(N, TILE))`, `range(ct.num_tiles(x, axis, shape))` or
  `range((N + TILE - 1) // TILE)`: the last tile is partial unless `N` is a multiple of `TILE`;
- the index on that axis is 0 and every launch in the file passes, for the tile extent, a
  power-of-two ceiling of a size (`TILE_N = next_power_of_2(N)`): one tile covers the row and
  overhangs it unless `N` is a power of two.

It stays silent when `padding_mode=` is given (any mode: choosing one is the author's
decision), when `check_bounds=False` says the tile never leaves the array, when the value
passes through `ct.where` (the usual mask) or any non-elementwise call (`reshape`, `ct.mma`)
before the reduction, when the reduction runs over an axis the tile does not overhang, and when
the sizes come from somewhere the file does not show (a tile size passed from another module).
Gathers (`ct.gather(..., padding_value=...)`) are not `ct.load`s and are not read.

Measured on the H200 (cuda-tile 1.7.0, tileiras 13.4.92; reproduced): the pair's row max over
all-negative rows, looping over `ct.cdiv(N, TILE)` column tiles, was wrong in every row of
every case where `N` is not a multiple of the tile (4,096 of 4,096 rows at N=1000 with one
1024-wide tile, 4,096 of 4,096 at N=1001 with 256-wide tiles, 2,048 of 2,048 in fp16 at
N=3000; max relative error 1.0: the max came out as a padded lane, not the data) and exact with
`padding_mode=NEG_INF`; at N=1024 (whole tiles) both were exact. Copying the padded tiles out
shows what the lanes hold: a mix of zeros, NaNs and other values, varying with the shape and
dtype (fp16 with N=1000: no zero at all among 24,576 padded lanes). Row sums over the same
tiles matched in 8 of 12 configurations and came out NaN in the other 4 (N=1001 with 256-wide
tiles, fp32 and fp16, contiguous or a strided view):
`reference_kernels/evidence/runs/KL404-padding/`. Off by default: cutile-python, TileGym and flashinfer give it no
finding, so its precision is not measured. Their 21 (unpadded load, reduction) pairs read as
correct: 0-d loads of per-row statistics (`shape=()`), test kernels whose tile is the whole
array, a group norm whose host asserts that the block divides `H * W`, and an online softmax
whose host pads the array to whole tiles with `-inf` before passing the tile count.

## Why is this bad?
`ct.load` partitions the array into tiles; a tile that reaches past the end is filled
"according to `padding_mode`", and the default, `PaddingMode.UNDETERMINED`, leaves the value of
those lanes unspecified. A sum of squares for an RMS norm, a dot product or a row max then adds
or compares lanes that are not data: the kernel is right only at sizes that are multiples of
the tile (or powers of two), and the tests that use such sizes pass. TileGym's RMS norm says it
in a comment: "padding_mode=ZERO is required when N is not a power of two ... otherwise
uninitialized memory inflates the variance". This is the cuTile twin of KL111 (Triton) and
KL317 (CuTe DSL).

## Example
```python
@ct.kernel
def row_sum_sq(x, out, N: int, TILE: ct.Constant[int]):
    row = ct.bid(0)
    acc = ct.zeros((1, TILE), dtype=ct.float32)
    for j in range(ct.cdiv(N, TILE)):
        t = ct.load(x, index=(row, j), shape=(1, TILE)).astype(ct.float32)
        acc += t * t
    ct.store(out, index=(row,), tile=ct.sum(acc, axis=1))
```

## Use instead
```python
        t = ct.load(x, index=(row, j), shape=(1, TILE),
                    padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
```
`PaddingMode.ZERO` for a sum, `NEG_INF` for a max, `POS_INF` for a min; mask with `ct.where`
for a product.
"""
    references = """
- cuTile `ct.load` documentation (`cuda/tile/_stub.py`): "For a tile that partially extends
  beyond the array boundaries, out-of-bound elements are filled according to `padding_mode`";
  the default is `PaddingMode.UNDETERMINED`, "the padding value is not determined".
- NVIDIA/TileGym `src/tilegym/ops/cutile/rms_norm.py` (the fix, in a comment: "padding_mode=ZERO
  is required when N is not a power of two ... otherwise uninitialized memory inflates the
  variance"); issue 23 item 18 (public cuTile norm and dot-product kernels correct only at sizes
  that are multiples of the tile).
- KL111 masked-load-without-other (Triton) and KL317 masked-copy-without-fill (CuTe DSL).
"""

    def finish(self, ctx):
        reported: set[int] = set()
        for call in ctx.nodes(ast.Call):
            name = ctx.call_name(call)
            if name not in cutile.REDUCTION_IDENTITY or tile_function_of(ctx, call) is None:
                continue
            operand = signature_argument(call, cutile.SIGNATURES[name], "x")
            if operand is None:
                continue
            operand_rank = self._rank(ctx, operand)
            for load in elementwise_loads(ctx, operand):
                if id(load) in reported or not self._unpadded(ctx, load):
                    continue
                axes = partial_axes(ctx, load)
                if not axes:
                    continue
                rank = len(tile_shape(ctx, load))
                if operand_rank is not None and operand_rank != rank:
                    continue
                reduced = reduced_axes(ctx, call, rank)
                overhang = next((a for a in axes if reduced is not None and a.axis in reduced), None)
                if overhang is None:
                    continue
                reported.add(id(load))
                yield Report(load, self._message(ctx, call, name, overhang, rank))

    @staticmethod
    def _unpadded(ctx, load: ast.Call) -> bool:
        """No ``padding_mode=``, and bounds are checked (``check_bounds=False`` promises no
        lane leaves the array)."""
        if argument(load, "padding_mode") is not None:
            return False
        check = argument(load, "check_bounds")
        return not (isinstance(check, ast.Constant) and check.value is False)

    @staticmethod
    def _rank(ctx, operand: ast.expr) -> int | None:
        shape = tile_shape(ctx, operand)
        return len(shape) if shape is not None else None

    @staticmethod
    def _message(ctx, reduction: ast.Call, name: str, overhang, rank: int) -> str:
        identity = cutile.REDUCTION_IDENTITY[name]
        fix = (f"pass `padding_mode=ct.PaddingMode.{identity}`" if identity is not None
               else "mask the tail with `ct.where` before it")
        axis = overhang.axis + rank
        return (f"`ct.load` without `padding_mode=` can reach past the array on axis {axis} ({overhang.reason}), "
                f"and its lanes reach `{short(reduction)}` (line {reduction.lineno}) over that axis: the tail "
                f"lanes are undetermined and enter the result; {fix}")
