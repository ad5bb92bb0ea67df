"""KL405 cutile-tile-as-load-index: a `ct.load`/`ct.store` index entry that is a tile of one or
more elements (a value loaded with `shape=(1,)`, a `ct.arange`) instead of a scalar."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.core.calls import signature_argument
from kernelint.model.cutile.tiles import tile_function_of, tile_shape, tuple_entries
from kernelint.model.dsl import cutile
from kernelint.rules import Report, Rule

_INDEXED = (cutile.LOAD, cutile.STORE)


class CutileTileAsLoadIndex(Rule):
    code = "KL405"
    name = "cutile-tile-as-load-index"
    family = "cutile-indexing"
    dsl = "cutile"
    # Reproduced on the H200 (the compiler rejects the kernel); reports only shapes the source states.
    severity = Severity.ERROR
    evidence_class = "compile"
    summary = ("A `ct.load`/`ct.store` index entry is a tile with one or more axes (loaded with "
               "`shape=(1,)`, a `ct.arange`): the index takes scalars, so the kernel does not compile.")
    node_types = (ast.Call,)
    calls = frozenset(_INDEXED)
    doc = """
## What it does
Reports an entry of the `index=` of a `ct.load` or `ct.store` in cuTile tile code whose value is
a tile with at least one axis, as the source states it: a `ct.load(..., shape=(1,))` (a lookup
table read the Triton way), a `ct.arange(...)`, a `ct.full`/`ct.zeros` of a non-empty shape, or
arithmetic and `astype` on one of them, followed through names.

It stays silent for scalars: a value loaded with `shape=()` (a 0-d tile, which cuTile accepts
as an index: its MoE sample reads expert ids this way), `t.item()`, `ct.bid`, loop variables,
integer arithmetic, and anything whose shape the source does not state.

Measured on the H200 (cuda-tile 1.7.0, tileiras 13.4.92; reproduced): the pair's lookup with the
row number loaded as `shape=(1,)` failed to compile in both cases with `TypeCheckingError:
Invalid argument "index" of load(): Expected a tuple of signed integers or a single signed
integer scalar, but item #0 has type Tile[int32,(1)]`; loaded with `shape=()` it compiled and
matched `table[lut]` exactly. The fixtures' other forms were compiled for sm_90 without a GPU
with the same versions: a `(1,)` tile as a `ct.store` index and a `ct.arange` as a `ct.load`
index fail the same way; a 0-d tile, `.item()`, a `ct.gather` and loop variables compile. On by
default: over the 384 cuTile files of cutile-python, TileGym and flashinfer (2,822 index entries,
4 of them 0-d tiles) it reports nothing, and it reports only a shape the source states.

## Why is this bad?
`ct.load` and `ct.store` index the tile space with a tuple of integer scalars. A tile of shape
`(1,)` is not a scalar, and the compiler stops with `Invalid argument "index" of load():
Expected a tuple of signed integers or a single signed integer scalar, but item #0 has type
Tile[int32,(1)]` (cutile-python #66). To index by a value read from memory, load it as a 0-d
tile (`shape=()`) or take `.item()`; to read one tile per entry of an index vector, use
`ct.gather` (or `ct.load_advanced_indexing`).

## Example
```python
@ct.kernel
def lookup(LUT, K, OUT, D: ct.Constant[int]):
    bid = ct.bid(0)
    row = ct.load(LUT, index=(bid,), shape=(1,))
    ct.store(OUT, index=(bid, 0), tile=ct.load(K, index=(row, 0), shape=(1, D)))
```

## Use instead
```python
    row = ct.load(LUT, index=(bid,), shape=())
```
"""
    references = """
- NVIDIA/cutile-python #66 ("[Question] : TileTypeError"): a `ct.load(LUT, index=(bid,), shape=(1,))`
  value used as a `ct.load` index fails to compile; cutile-python's `samples/MoE.py` loads the index with
  `shape=()`, JuliaGPU/cuTile.jl #24 discusses the same sample.
- cuTile `ct.load` documentation (`cuda/tile/_stub.py`): `index (tuple[int,...])`.
"""

    def check(self, node, ctx):
        name = ctx.call_name(node)
        if name not in _INDEXED or tile_function_of(ctx, node) is None:
            return
        entries = tuple_entries(ctx, signature_argument(node, cutile.SIGNATURES[name], "index"))
        for entry in entries or ():
            shape = tile_shape(ctx, entry)
            if shape:
                yield Report(entry, f"index entry `{short(entry)}` is a tile of shape "
                                    f"({', '.join(short(s) for s in shape)}{',' if len(shape) == 1 else ''}), "
                                    f"not a scalar: `{name.rsplit('.', 1)[1]}` will not compile; load it with "
                                    f"`shape=()` or take `.item()` (use `ct.gather` for one tile per index)")
