"""KL401 cutile-index-is-block-index: a `ct.load`/`ct.store` index that multiplies a block id by
the tile size counts elements where cuTile counts tiles."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Edit, Fix, Severity
from kernelint.model.core.calls import signature_argument
from kernelint.model.cutile.tiles import block_id_in, tile_function_of, tile_shape, tuple_entries
from kernelint.model.core.dataflow import additive_terms, factors
from kernelint.model.dsl import cutile
from kernelint.rules import Report, Rule

_ACCESSES = {cutile.LOAD: "shape", cutile.STORE: "tile"}


def _same_size(ctx, factor: ast.expr, size: ast.expr) -> bool:
    """``factor`` is the tile extent ``size``: the same name or expression, or the same
    constant. An extent of 1 never counts: ``bid * 1`` is the block id itself."""
    if ctx.resolve_int(size) == 1:
        return False
    if ast.dump(factor) == ast.dump(size):
        return True
    known = ctx.resolve_int(factor)
    return known is not None and known == ctx.resolve_int(size)


def _drop_multiplier(entry: ast.expr, size: ast.expr, block_id: ast.expr) -> Fix | None:
    """``bid * TILE`` -> ``bid`` when the entry is that product itself (unsafe: an author who
    meant a different tile should choose it)."""
    if not (isinstance(entry, ast.BinOp) and isinstance(entry.op, ast.Mult) and {id(entry.left), id(entry.right)}
            == {id(size), id(block_id)}):
        return None
    return Fix("Index the tile by the block id", (
        Edit(entry.lineno, entry.col_offset, entry.end_lineno, entry.end_col_offset, ast.unparse(block_id)),
    ), safe=False)


def _element_stepping_loop(ctx, term: ast.expr, size: ast.expr) -> ast.For | None:
    """The ``for`` loop that binds ``term`` as ``range(start, stop, size)``: its variable counts
    elements in steps of the tile extent (the Triton K loop), so used as an index it skips tiles."""
    if not isinstance(term, ast.Name):
        return None
    definitions = ctx.definitions(term.id, term)
    if len(definitions) != 1 or definitions[0].kind != "loop":
        return None
    loop = definitions[0].node
    if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
        return None
    iterator = loop.iter
    if not (isinstance(iterator, ast.Call) and isinstance(iterator.func, ast.Name) and iterator.func.id == "range"
            and len(iterator.args) == 3 and not ctx.definitions("range", iterator)):
        return None
    return loop if _same_size(ctx, iterator.args[2], size) else None


class CutileIndexIsBlockIndex(Rule):
    code = "KL401"
    name = "cutile-index-is-block-index"
    family = "cutile-indexing"
    dsl = "cutile"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("A `ct.load`/`ct.store` index multiplies a block id by the tile size: cuTile indexes "
               "tiles, so this reads and writes the wrong tiles.")
    node_types = (ast.Call,)
    calls = frozenset(_ACCESSES)
    doc = """
## What it does
Flags a `ct.load` or `ct.store` in cuTile tile code whose `index=` entry for one axis is a
product of a block id (`ct.bid(...)`, or a value computed from it) and that axis's tile extent,
the `shape=` of the load or the shape of the stored tile (`index=(bid * TILE,)` with
`shape=(TILE,)`). Names are followed through their assignments, so `start = pid * TILE` then
`index=(start,)` is seen too, and so is a helper's parameter that every caller in the file
passes a block id for. The same holds for the variable of a loop that steps by the tile
extent, `for k in range(0, K, TK)` with `index=(bid, k)` and `shape=(TM, TK)`: it counts elements.

It stays silent when the multiplier is anything else: `index=(pid_n * 2,)` with a tile of
`BLOCK_N // 2` (two half-width tiles per block) is a tile index, and so is a block id used
as it is. An extent of 1 is never reported.

## Why is this bad?
cuTile partitions the array into tiles of the given shape and `index` picks a tile:
`ct.load(x, index=(i,), shape=(T,))` reads elements `i*T .. i*T+T-1`. Multiplying the block id
by `T` (the Triton habit of computing element offsets) makes block `b` read tile `b*T`, which is
`T` times too far: most blocks read past the end (out-of-bounds tiles load padding, stores are
dropped) and the output is mostly wrong, without any error.

## Example
```python
@ct.kernel
def add(a, b, c, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    x = ct.load(a, index=(bid * TILE,), shape=(TILE,))
```

## Use instead
```python
@ct.kernel
def add(a, b, c, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    x = ct.load(a, index=(bid,), shape=(TILE,))
```
"""
    references = f"""
- {SEED}, 'Gotchas' table, row 'Index type' (block index in `ct.load`/`ct.store`, element
  offsets in Triton).
- cuTile's `ct.load` documentation (`cuda/tile/_stub.py`): the array is partitioned into a tile
  space and `index` selects a tile of it.
"""

    def check(self, node, ctx):
        kind = _ACCESSES.get(ctx.call_name(node))
        if kind is None or tile_function_of(ctx, node) is None:
            return
        signature = cutile.SIGNATURES[ctx.call_name(node)]
        index = tuple_entries(ctx, signature_argument(node, signature, "index"))
        if kind == "shape":
            shape = tuple_entries(ctx, signature_argument(node, signature, "shape"))
        else:
            tile = signature_argument(node, signature, "tile")
            shape = tile_shape(ctx, tile) if tile is not None else None
        if not index or not shape:
            return
        for entry, size in zip(index, shape):
            for term in additive_terms(ctx, entry):
                loop = _element_stepping_loop(ctx, term, size)
                if loop is not None:
                    yield Report(entry, f"index `{short(entry)}` steps by the tile size `{short(size)}` "
                                        f"(`{short(loop.iter)}`): cuTile indexes tiles, not elements; loop over "
                                        f"tile numbers (`range(ct.num_tiles(...))`)")
                    return
                multiplicands = factors(ctx, term)
                for position, factor in enumerate(multiplicands):
                    if not _same_size(ctx, factor, size):
                        continue
                    others = multiplicands[:position] + multiplicands[position + 1:]
                    block_id = next((o for o in others if block_id_in(ctx, o)), None)
                    if block_id is not None:
                        message = (f"index `{short(entry)}` multiplies block id `{short(block_id)}` by the tile "
                                   f"size `{short(size)}`: cuTile indexes tiles, not elements; pass the tile "
                                   f"index `{short(block_id)}`")
                        yield Report(entry, message, fix=_drop_multiplier(entry, factor, block_id))
                        return
