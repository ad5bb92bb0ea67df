"""KL316 predicate-layout-mismatch: the predicate of a `cute.copy(..., pred=...)` is built from
coordinates split among threads differently from the data it masks."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.predicates import (
    Mismatch,
    compare_partitions,
    partition_of,
    partitions_feeding,
    predicated_copies,
)
from kernelint.model.cute.static import traced_functions
from kernelint.rules import Report, Rule


class PredicateLayoutMismatch(Rule):
    code = "KL316"
    name = "predicate-layout-mismatch"
    family = "cute-numerics"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("The predicate of a `cute.copy(..., pred=...)` comes from coordinates partitioned by another "
               "tiled copy, or tiled differently, than the data: the wrong elements are masked.")
    wants_finish = True
    doc = """
## What it does
Reports a predicated copy (`cute.copy(atom, src, dst, pred=p)`, a library copy helper called
with `pred=`, or `functools.partial(copy, pred=p)`) in CuTe DSL code when the partition the
predicate was built from (`thr_c.partition_S(cX)` of the identity tensor, followed through
`predicate_k(...)`-style helpers, Boolean fragments filled element by element, and names) and
the partition of the copied data (`thr.partition_S(gX)` / `partition_D`) provably differ:

- the two thread slices come from tiled copies (or MMAs) made by the same factory with layout
  arguments that fold to different integers (`make_ordered_layout((4, 32), order=(1, 0))`
  against `order=(0, 1)`), the copy atom aside; or
- the same slice partitions a data tile and a coordinate tile taken by `cute.local_tile` with a
  different tiler or tile coordinate.

It stays silent whenever either side cannot be followed (a tiled copy passed in from another
module, a helper's parameter, different factories that may build the same layout), when any of
the partitions the predicate reads matches the data's, and for partitions of thread 0's slice
(`tiled.get_slice(0)`), which flash-attention compares against a shifted limit on purpose. Two
tiled copies made with the same thread and value layouts but different atoms (a load and a
store copy) partition alike and are not reported.

Measured on the H200 (reproduced): scaling a 4096x1000 fp32 matrix by 2 with 4x32 threads and
a 1024-column tile, a predicate built from the same partition with the threads ordered
column-first skipped 73,728 in-range elements (72 columns of every fourth row, left at 0; max
abs error 8.8), while the kernel whose coordinates share the data's slice matched exactly; with
N = 1024 (nothing masked) both matched. Error, on by default: over
CUTLASS's examples and DSL library, quack, flashinfer and flash-attention it compares 132
predicated copies whose partitions it can follow and reports none (121 match, the rest cannot be
decided and stay silent), and reordering the threads of a real store copy is reported.

## Why is this bad?
A predicate tensor is indexed like the data it masks: element `i` of `tXpX` decides whether
element `i` of this thread's `tXgX` is copied. That only holds if both were split among the
threads by the same thread-value layout and cut from the same tile. Built from another tiled
copy, a thread tests coordinates of elements that another thread copies: in a ragged last tile
some in-range elements are skipped (left unwritten, or read as whatever the destination held)
and some out-of-range ones are read or written past the end of the row.

## Example
```python
thr_copy = tiled_copy.get_slice(tidx)
tXgX = thr_copy.partition_S(gX)
thr_copy_c = cute.make_tiled_copy_tv(atom, thr_layout_col_major, val_layout).get_slice(tidx)
tXcX = thr_copy_c.partition_S(cX)
tXpX = predicate_k(tXcX, limit=n)
cute.copy(tiled_copy, tXgX, tXrX, pred=tXpX)
```

## Use instead
```python
thr_copy = tiled_copy.get_slice(tidx)
tXgX = thr_copy.partition_S(gX)
tXcX = thr_copy.partition_S(cX)
tXpX = predicate_k(tXcX, limit=n)
cute.copy(tiled_copy, tXgX, tXrX, pred=tXpX)
```
"""
    references = """
- CuTe DSL kernel skill, 'Copies and predication' (partition an identity tensor alongside the data; "predicate from the identity tensor partitioned identically to data" in its failure table).
"""

    def finish(self, ctx):
        for copy in predicated_copies(ctx):
            yield from self._check_copy(copy, ctx)

    @staticmethod
    def _check_copy(copy, ctx):
        node = copy.call
        function = ctx.function_of(node)
        if function is None or id(function) not in traced_functions(ctx):
            return
        data = [p for p in (partition_of(ctx, copy.src), partition_of(ctx, copy.dst)) if p is not None]
        feeding = partitions_feeding(ctx, copy.pred)
        if not data or not feeding:
            return
        mismatches = []
        for predicate in feeding:
            for partition in data:
                verdict = compare_partitions(ctx, partition, predicate)
                if verdict == "ignored":
                    continue
                if not isinstance(verdict, Mismatch):
                    return
                mismatches.append(verdict)
        if not mismatches:
            return
        first = mismatches[0]
        predicate_text = ast.unparse(first.predicate.call)
        data_text = ast.unparse(first.data.call)
        if first.kind == "slice":
            why = (f"this copy's predicate is built from `{predicate_text}` (line {first.predicate.call.lineno}) but the data "
                   f"is `{data_text}` (line {first.data.call.lineno}), split by a tiled copy with another thread "
                   f"layout")
        else:
            why = (f"this copy's predicate is built from `{predicate_text}` (line {first.predicate.call.lineno}), a "
                   f"coordinate tile cut with another tiler or coordinate than the data `{data_text}` "
                   f"(line {first.data.call.lineno})")
        yield Report(
            node,
            f"{why}: each thread tests other elements than it copies, so the wrong elements are masked; partition "
            "the identity tensor exactly like the data",
        )
