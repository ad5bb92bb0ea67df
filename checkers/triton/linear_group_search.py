"""KL203 linear-group-search: every program scans all group bounds with `tl.where` to find its group."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Confidence, Severity
from kernelint.model.dsl.triton import LOAD, RANGE, STATIC_RANGE, WHERE
from kernelint.rules import Report, Rule


class LinearGroupSearch(Rule):
    code = "KL203"
    name = "linear-group-search"
    family = "triton-launch"
    dsl = "triton"
    severity = Severity.INFO
    confidence = Confidence.MEDIUM
    default_enabled = False
    evidence_class = "perf"
    summary = "Each program scans every group's bounds with `tl.where` to find its own group."
    node_types = (ast.For,)
    doc = """
## What it does
Flags a loop over `range(...)` in a Triton kernel that loads a value indexed by the loop
variable (a group's first tile or row) and updates a loop-carried variable with
`tl.where(<position compared with the loaded bound>, <the loop index>, variable)`: a linear
scan over all groups that every program repeats to find which group its tile belongs to
(grouped GEMM, mixture of experts, variable-length batches). Stays silent on loops that do the
group's work (a `tl.where` that masks computed values), on table lookups by equality, and on
scans that stop early.

Info and off by default: measured on the H200 (see *Evidence*), a grouped GEMM with a linear
scan over the groups' first-tile offsets against a binary search cost a median 1.18x (1.04x at
8 groups up to 3.19x at 1,024 groups of 32 rows): below the 1.2x a warning needs. The seed's
2-5x shows only with hundreds of small groups.

## Why is this bad?
With G groups every program issues G dependent loads before it can start its tile, and the
scan repeats in every program. With a few groups it is noise; with hundreds of experts and
small tiles it can rival the tile's own work. A binary search needs log2(G) loads; a
precomputed tile-to-group map needs one; a persistent kernel that walks the groups in order
needs none per tile.

## Example
```python
group = 0
for g in range(num_groups):
    first_tile = tl.load(tile_starts_ptr + g)
    group = tl.where(tile >= first_tile, g, group)
```

## Use instead
```python
group = 0
high = num_groups - 1
while group < high:
    middle = (group + high + 1) // 2
    if tl.load(tile_starts_ptr + middle) <= tile:
        group = middle
    else:
        high = middle - 1
```
"""
    references = f"""
- {SEED}, 'CRITICAL PERFORMANCE PATTERNS', 'Performance Killer #2: Inefficient Group/Batch
  Iteration' (claims 2-5x), and the regression table row 'Group iteration'.
"""

    def check(self, node, ctx):
        if (not isinstance(node.target, ast.Name) or ctx.kernel_of(node, "triton") is None
                or not (isinstance(node.iter, ast.Call) and (
                    (isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range")
                    or ctx.is_call(node.iter, RANGE, STATIC_RANGE)))):
            return
        if any(isinstance(n, (ast.Break, ast.Return)) for n in ast.walk(node)):
            return
        index = node.target.id
        bounds = {t.id for statement in node.body for t in _assigned_loads(statement, index, ctx)}
        for statement in ast.walk(node):
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Name) and ctx.is_call(statement.value, WHERE)
                    and len(statement.value.args) == 3):
                continue
            carried = statement.targets[0].id
            condition, *choices = statement.value.args
            keeps_itself = any(isinstance(c, ast.Name) and c.id == carried for c in choices)
            picks_index = any(isinstance(n, ast.Name) and n.id == index for c in choices for n in ast.walk(c))
            if keeps_itself and picks_index and _orders_against_bound(condition, bounds, index, ctx):
                yield Report(
                    node,
                    f"every program scans all groups to find its own (`{carried}` chosen with `tl.where` "
                    f"over `{short(node.iter)}`); search the sorted group offsets (binary search) or "
                    "map tiles to groups once",
                    end_node=node.iter,
                )
                return


def _condition_parts(condition, ctx, depth: int = 3) -> list[ast.AST]:
    """``condition`` and, through names, the expressions it was computed from: the seed's form
    names the condition on its own line (``found = start <= tile; g = tl.where(found, i, g)``)."""
    parts = [condition]
    if depth <= 0:
        return parts
    for name in (n for n in ast.walk(condition) if isinstance(n, ast.Name)):
        for value in ctx.values_of(name):
            if value is not None and not isinstance(value, ast.Name):
                parts += _condition_parts(value, ctx, depth - 1)
    return parts


def _orders_against_bound(condition, bounds: set[str], index: str, ctx) -> bool:
    """``condition`` compares (``<``, ``<=``, ``>``, ``>=``) something with a loaded group bound:
    groups are found by position among sorted offsets, not by equality (a table lookup)."""
    compares = [n for part in _condition_parts(condition, ctx) for n in ast.walk(part) if isinstance(n, ast.Compare)]
    for compare in compares:
        if all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in compare.ops) and any(
            (isinstance(n, ast.Name) and n.id in bounds) or _indexed_load(n, index, ctx)
            for operand in (compare.left, *compare.comparators) for n in ast.walk(operand)
        ):
            return True
    return False


def _indexed_load(node, index: str, ctx) -> bool:
    """``tl.load(p + index ...)``: a load whose pointer reads the loop variable."""
    return ctx.is_call(node, LOAD) and bool(node.args) and any(
        isinstance(n, ast.Name) and n.id == index for n in ast.walk(node.args[0]))


def _assigned_loads(statement, index: str, ctx) -> list[ast.Name]:
    """Names that ``statement`` binds to a load indexed by the loop variable (or a value built from one)."""
    if isinstance(statement, ast.Assign) and any(_indexed_load(n, index, ctx) for n in ast.walk(statement.value)):
        return [t for t in statement.targets if isinstance(t, ast.Name)]
    return []
