"""KL317 masked-copy-without-fill: a predicated copy whose masked elements reach a max/min
reduction without being set to the reduction's identity."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.core.values import base_name
from kernelint.model.cute.predicates import (
    constant_number,
    fills_of,
    is_extremum_reduction,
    predicated_copies,
    reduced_operands,
    tensors_feeding,
)
from kernelint.model.cute.static import traced_functions
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree


def _reduction_kind(ctx, call: ast.Call) -> str:
    """``"min"`` when the reduction takes a minimum, else ``"max"``."""
    text = " ".join(
        (ctx.qualname(n) or (n.attr if isinstance(n, ast.Attribute) else n.id if isinstance(n, ast.Name) else ""))
        for n in ast.walk(call) if isinstance(n, (ast.Name, ast.Attribute))
    ).lower()
    return "min" if ("min" in text and "max" not in text) else "max"


class MaskedCopyWithoutFill(Rule):
    code = "KL317"
    name = "masked-copy-without-fill"
    family = "cute-numerics"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("A predicated copy into registers or shared memory whose masked elements reach a max/min "
               "reduction without being filled with its identity (-inf for max): wrong maximum.")
    wants_finish = True
    doc = """
## What it does
Reports a predicated copy (`cute.copy(atom, src, dst, pred=p)`, a copy helper called with
`pred=`, or `functools.partial(copy, pred=p)`) in CuTe DSL code when the destination's
elements reach a max or min reduction and the masked elements are not set first:

- nothing else writes the destination in its function (no `dst.fill(v)`, no `fill_oob(dst,
  pred, v)`-style helper, no element store, no other copy into it, no helper of the file given
  it); or
- the only fills write a finite constant that is not the reduction's identity: `fill(0.0)`
  before a max (or a min), which wins whenever the real values are all negative.

The flow is followed inside one function: `dst.load()`, a register fragment that
`cute.autovec_copy(dst, frag)` filled, arithmetic, `.to(...)`, names. Reductions are
`x.reduce(cute.ReductionOp.MAX | MIN, ...)`, calls given `cute.ReductionOp.MAX`
(`row_reduce(x, cute.ReductionOp.MAX, ...)`), `cute.arch.fmax` / `fmin`,
`warp_reduction_max`, a reduction given `fmax` as its operator, and helpers whose name says max
or min (`block_reduce_max`, `online_softmax_reduce`).

It stays silent for sums (a fill with 0 is the identity there), when the value passes through a
select (`cute.where`) or an absolute value before the reduction, when the fill value cannot be
read (`-Float32.inf`, `-tXsX.element_type.inf`, a parameter), and when the destination is a
parameter of the function (its caller may have filled it).

Measured on the H200 (reproduced): a row max over a 4096x1000 all-negative fp32 matrix, one
warp per row and a 1024-column tile, with the register fragment filled with 0.0 before the
predicated copy, returned 0 for all 4,096 rows (max abs error 0.108); filled with -inf it matched
exactly, and with N = 1024 (nothing masked) both matched. The unfilled form was not run: its
masked registers are undefined, so its output depends on what they held. Error, on by default:
the only predicated copies in the corpus that reach a max (quack's softmax and cross entropy)
fill with -inf and are not reported, and deleting that fill (or filling 0) is.

## Why is this bad?
A predicated copy skips the masked elements: they keep whatever the destination held. A fresh
register fragment holds undefined values (the PTX of the pair's kernel without the fill feeds
uninitialised registers to `max`), a shared-memory tile holds the previous tile's data (or
zeros, where a predicated-off `cp.async` zero-fills, as quack's softmax backward relies on), and
a fragment filled with zeros holds zeros. A maximum over a row whose real values are all negative (logits,
log-probabilities) then comes out as 0 or as garbage, and a softmax built on it is wrong. The
masked elements must hold the identity of the reduction: `-inf` for a max, `+inf` for a min.
This is the CuTe DSL twin of KL111 (`tl.load` with a mask and no `other=` before `tl.max`).

## Example
```python
tXrX = cute.make_fragment_like(tXgX)
tXrX.fill(0.0)
cute.copy(tiled_copy, tXgX, tXrX, pred=tXpX)
row_max = tXrX.load().reduce(cute.ReductionOp.MAX, -cutlass.Float32.inf, 0)
```

## Use instead
```python
tXrX = cute.make_fragment_like(tXgX)
tXrX.fill(-cutlass.Float32.inf)
cute.copy(tiled_copy, tXgX, tXrX, pred=tXpX)
row_max = tXrX.load().reduce(cute.ReductionOp.MAX, -cutlass.Float32.inf, 0)
```
"""
    references = """
- CuTe DSL kernel skill, 'Copies and predication' ("after a predicated load into smem, fill out-of-bounds slots with the reduction identity (0 for sums, -inf for maxes)").
- KL111 masked-load-without-other, the Triton form of the same mistake.
"""

    def finish(self, ctx):
        copies = predicated_copies(ctx)
        if not copies:
            return
        traced = traced_functions(ctx)
        by_function: dict[int, list] = {}
        for copy in copies:
            function = ctx.function_of(copy.call)
            if function is not None and id(function) in traced:
                by_function.setdefault(id(function), []).append(copy)
        for copies_here in by_function.values():
            function = ctx.function_of(copies_here[0].call)
            reductions = self._reductions(ctx, function)
            if not reductions:
                continue
            for copy in copies_here:
                destination = base_name(copy.dst)
                if destination is None or self._is_parameter(ctx, destination):
                    continue
                reduction = next((r for r, tensors in reductions if destination.id in tensors), None)
                if reduction is None:
                    continue
                kind = _reduction_kind(ctx, reduction)
                message = self._verdict(ctx, destination, copy.call, kind, reduction)
                if message is not None:
                    yield Report(copy.call, message)

    @staticmethod
    def _reductions(ctx, function) -> list[tuple[ast.Call, set[str]]]:
        """The max/min reductions of ``function`` with the names of the tensors they read."""
        found = []
        for call in subtree(function):
            if not isinstance(call, ast.Call) or ctx.function_of(call) is not function:
                continue
            if not is_extremum_reduction(ctx, call):
                continue
            names: set[str] = set()
            for operand in reduced_operands(ctx, call):
                names.update(n.id for n in tensors_feeding(ctx, operand).values())
            if names:
                found.append((call, names))
        return found

    @staticmethod
    def _is_parameter(ctx, name: ast.Name) -> bool:
        return any(d.kind == "param" for d in ctx.definitions(name.id, name))

    @staticmethod
    def _verdict(ctx, destination: ast.Name, copy: ast.Call, kind: str, reduction: ast.Call) -> str | None:
        fills = fills_of(ctx, destination, copy)
        identity = "-inf" if kind == "max" else "+inf"
        where = f"the {kind} reduction at line {reduction.lineno}"
        if not fills:
            return (f"predicated copy into `{destination.id}` leaves the masked elements unset, and they reach {where}: "
                    f"they keep whatever the destination held (undefined registers, stale or zero-filled shared memory); fill "
                    f"`{destination.id}` with `{identity}` (the identity of {kind}) first")
        values = [constant_number(ctx, f.value) for f in fills]
        if any(v is None for v in values):
            return None
        wrong = [v for v in values if (v >= 0 if kind == "max" else v <= 0)]
        if len(wrong) != len(values):
            return None
        shown = f"{wrong[0]:g}"
        return (f"`{destination.id}` is filled with {shown} around this predicated copy, and its masked elements reach "
                f"{where}: they count as {shown}, which wins whenever the real values are all "
                f"{'negative' if kind == 'max' else 'positive'}; fill with `{identity}` (the identity of {kind})")
