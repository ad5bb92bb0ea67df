"""KL117 tile-index-as-offset: A tile number is used where Triton expects an element offset."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.core import dataflow
from kernelint.model.index import indices
from kernelint.model.triton import memory
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.rules import Because, Report, Rule
from kernelint.model.core.walk import children

_DESCRIPTOR_METHODS = ("load", "store", "atomic_add")


def _single_lane(ctx, arange: ast.Call) -> bool:
    """``tl.arange(0, 1)``: one lane, so an index added to it is an element index."""
    signature = triton.SIGNATURES[triton.ARANGE]
    start, end = (signature_argument(arange, signature, n) for n in ("start", "end"))
    bounds = [ctx.resolve_int(b) if b is not None else None for b in (start, end)]
    return None not in bounds and bounds[1] - bounds[0] == 1


class TileIndexAsOffset(Rule):
    code = "KL117"
    name = "tile-index-as-offset"
    family = "triton-indexing"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = "A tile number (program id, tile-loop counter) is used as an element offset."
    per_kernel = "triton"
    doc = """
## What it does
Flags, in a Triton kernel, a tile number used as an element offset:

- a load or store pointer that adds `tl.arange(0, B)` to a program id (`tl.program_id(0)`, or a
  value computed from it with `//`, `%`, `+`, `-` only) or to the counter of a step-1 loop over
  `cdiv(n, B)` tiles, with nothing multiplying it by the tile size;
- an element of the `offsets` of `tl.make_block_ptr`, or of a tensor descriptor's `load`/`store`
  (descriptor from `tl.make_tensor_descriptor` in the kernel), that is such a tile number, in a
  dimension whose block size is not 1.

Silent when a multiply appears anywhere in the index's definition (`pid * BLOCK`, grouped
orderings built from `group_id * GROUP_M`), when the loop steps by the block size
(`range(0, n, BLOCK)`), when the block size of that dimension is 1, when the loop bound is not a
tile count, and when the arange is itself scaled (`pid + tl.arange(0, B) * stride` walks a column).

## Why is this bad?
cuTile and several tile DSLs index tiles: `ct.load(x, index=(bid,), shape=(TILE,))` reads tile
number `bid`. Triton counts elements: `x_ptr + pid + tl.arange(0, BLOCK)` reads elements `pid` to
`pid + BLOCK - 1`, so program 1 reads almost the same elements as program 0, and most of the tensor
is never read or written. The kernel runs without an error and returns wrong values; with masks
on `offs < n` it does not even touch memory out of bounds.

## Example
```python
pid = tl.program_id(0)
offs = pid + tl.arange(0, BLOCK)
x = tl.load(x_ptr + offs, mask=offs < n)
```

## Use instead
```python
offs = pid * BLOCK + tl.arange(0, BLOCK)
```
"""
    references = """
- cuTile→Triton conversion guide (seed 000): cuTile's `index=` counts tiles, Triton's offsets
  count elements.
- Measured on the H200 for cuTile itself (docs/measured-facts.md): passing element offsets where
  cuTile counts tiles left 65,278 of 65,536 outputs wrong; this rule is the same mistake the other
  way round.
"""

    def check_kernel(self, kernel, ctx):
        calls = ctx.calls_in(kernel.node)
        yield from self._pointer_offsets(ctx, kernel)
        yield from self._block_offsets(ctx, calls)
        yield from self._through_helpers(ctx, calls)

    def _through_helpers(self, ctx, calls):
        """A tile index passed to a ``@triton.jit`` helper of the file (the last one of its
        name) that adds the parameter it lands in to a ``tl.arange`` (the seed's form: ``offs =
        block_offsets(pid, BLOCK)`` with ``return start + tl.arange(0, BLOCK)``)."""
        for call in calls:
            named = ctx.kernels_named(call.func.id) if isinstance(call.func, ast.Name) else []
            helper = next((k for k in reversed(named) if k.dsl == "triton"), None)
            if helper is None:
                continue
            params = [a.arg for a in helper.params]
            bound = dict(zip(params, call.args))
            bound.update({k.arg: k.value for k in call.keywords if k.arg})
            for param, arange in _params_added_to_arange(ctx, helper).items():
                argument = bound.get(param)
                how = indices.tile_index(ctx, argument) if argument is not None else None
                if how is not None:
                    yield Report(
                        argument,
                        f"{how} is passed to `{helper.name}` as `{param}`, which adds it to "
                        f"`{ast.unparse(arange)}` as if it were an element offset: Triton offsets "
                        "count elements, so multiply the tile number by the tile size",
                        facts=(Because(f"`{helper.name}` adds `{param}` to `{ast.unparse(arange)}`", arange),),
                    )

    def _pointer_offsets(self, ctx, kernel):
        found: dict[tuple[int, int], tuple[ast.AST, ast.expr, str]] = {}
        # One walk over every pointer of the kernel, through the names they are built from:
        # pointers of one kernel share their offset expressions.
        stack = [pointer for _, _, pointer in memory.pointer_calls(ctx, kernel)]
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen or isinstance(node, ast.Lambda) or dataflow.is_load(ctx, node):
                continue
            seen.add(id(node))
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
                self._tile_plus_arange(ctx, node, found)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                stack.extend(dataflow.bound_values(ctx, node))
            else:
                stack.extend(children(node))
        for node, arange, how in sorted(found.values(), key=lambda f: (f[0].lineno, f[0].col_offset)):
            yield Report(
                node,
                f"{how} is added to `{ast.unparse(arange)}` as if it were an element offset: Triton "
                "offsets count elements, so multiply the tile number by the tile size",
            )

    @staticmethod
    def _tile_plus_arange(ctx, node, found):
        terms = dataflow.additive_terms(ctx, node)
        aranges = [t for t in terms if ctx.is_call(t, triton.ARANGE) and not _single_lane(ctx, t)]
        for term in terms if aranges else ():
            how = indices.tile_index(ctx, term)
            if how is not None:
                key = (id(term), id(aranges[0]))
                # Report where the two are added, not at every pointer built from it.
                if key not in found or any(n is aranges[0] for n in ast.walk(node)):
                    found[key] = (node, aranges[0], how)

    def _block_offsets(self, ctx, calls):
        for call in calls:
            if ctx.is_call(call, triton.MAKE_BLOCK_PTR):
                signature = triton.SIGNATURES[triton.MAKE_BLOCK_PTR]
                offsets = signature_argument(call, signature, "offsets")
                block_shape = signature_argument(call, signature, "block_shape")
            elif isinstance(call.func, ast.Attribute) and call.func.attr in _DESCRIPTOR_METHODS and call.args:
                offsets = call.args[0]
                block_shape = self._descriptor_block_shape(ctx, call.func.value)
            else:
                continue
            if not isinstance(offsets, (ast.List, ast.Tuple)) or not isinstance(block_shape, (ast.List, ast.Tuple)):
                continue
            if len(offsets.elts) != len(block_shape.elts):
                continue
            for offset, size in zip(offsets.elts, block_shape.elts):
                if ctx.resolve_int(size) == 1:
                    continue
                terms = dataflow.additive_terms(ctx, offset)
                how = indices.tile_index(ctx, terms[0]) if len(terms) == 1 else None
                if how is not None:
                    yield Report(
                        offset,
                        f"{how} is used as the offset of a dimension whose block is `{ast.unparse(size)}`: "
                        "block and descriptor offsets count elements, so multiply it by the block size",
                    )

    @staticmethod
    def _descriptor_block_shape(ctx, descriptor):
        """The ``block_shape`` of the in-kernel ``tl.make_tensor_descriptor`` ``descriptor`` is."""
        values = list(ctx.values_of(descriptor))
        if len(values) == 1 and ctx.is_call(values[0], triton.MAKE_TENSOR_DESCRIPTOR):
            return signature_argument(values[0], triton.SIGNATURES[triton.MAKE_TENSOR_DESCRIPTOR], "block_shape")
        return None


def _params_added_to_arange(ctx, helper) -> dict[str, ast.Call]:
    """Parameter -> the ``tl.arange`` a ``@triton.jit`` helper adds it to, unscaled."""
    params = {a.arg for a in helper.params}
    found: dict[str, ast.Call] = {}
    for node in ast.walk(helper.node):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            terms = dataflow.additive_terms(ctx, node)
            aranges = [t for t in terms if ctx.is_call(t, triton.ARANGE) and not _single_lane(ctx, t)]
            if not aranges:
                continue
            for term in terms:
                name = term.arg if isinstance(term, ast.arg) else term.id if isinstance(term, ast.Name) else None
                if name in params and name not in found:
                    found[name] = aranges[0]
    return found
