"""KL121 wrong-dtype-map: A torch-to-Triton dtype table maps a dtype to a Triton type of another
width or format."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.dsl import triton
from kernelint.model.core.dtype_names import torch_dtype, torch_dtype_named, triton_dtype
from kernelint.model.project.dtype_tables import uses_of_table
from kernelint.rules import Because, Report, Rule


_FLOATS = triton.FLOAT_WIDE | triton.FLOAT_LOW


class WrongDtypeMap(Rule):
    code = "KL121"
    name = "wrong-dtype-map"
    family = "triton-dtypes"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = "A torch-to-Triton dtype table maps a dtype to a Triton type of another width or format."
    node_types = (ast.Dict, ast.If, ast.For)
    doc = """
## What it does
Flags an entry of a torch-to-Triton dtype table, a dict literal (`{torch.bfloat16: tl.float16}`) or
an `if`/`elif` chain (`if dtype == torch.bfloat16: out = tl.float16`), whose Triton type is not the
one that holds the torch dtype bit for bit: another width, or another floating-point format of the
same width (`torch.float8_e4m3fn` is `tl.float8e4nv`, not `tl.float8e4b15`; `torch.bfloat16` is
`tl.bfloat16`, not `tl.float16`).

Only tables that map at least two dtypes to their own Triton type count: a table whose values are
mostly other types is a compute-type table (`{torch.float16: tl.float32, torch.bfloat16:
tl.float32}` picks the accumulator) and is left alone. Same-width integer containers
(`torch.float8_e4m3fn: tl.uint8`, `torch.bool: tl.int8`) hold the bits unchanged and are not
reported.

The table's lookups are followed through the project: `T[x.dtype]` and `T.get(...)` in its own
module and in the modules that import it, calls of the function an `if` chain returns from, to
the kernel launch whose constexpr receives the type. A kernel that makes it a pointer's element
type or bitcasts to it is named in the finding (with the dtypes of the tensors looked up, where
the host shows them). When every lookup reaches kernels that only convert values to the type
(`x.to(ROUND)`, `tl.zeros(..., dtype=ACC)`), the table picks a compute or rounding type on purpose
and is not reported; where a lookup cannot be followed, it is reported as before.

## Why is this bad?
Such tables choose the element type of pointers built from raw addresses
(`tl.load(ptrs + i).to(tl.pointer_type(DTYPE))`), of casts and of stores. With the wrong entry,
the kernel reads one format's bits as another's: bfloat16 data read as float16 turns into
numbers of the wrong magnitude, an fp8 variant with another exponent bias scales every value, and
a type of another width also steps through memory by the wrong element size. The other dtypes of
the table work, so tests that use only those pass.

## Example
```python
TORCH_TO_TL = {torch.float16: tl.float16, torch.bfloat16: tl.float16, torch.float32: tl.float32}
```

## Use instead
```python
TORCH_TO_TL = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32}
```
"""
    references = """
- cuTile→Triton conversion guide (seed 000): its dtype-mapping table (torch, cuTile and Triton
  names of each element type) is the reference for the correct entries.
"""

    def check(self, node, ctx):
        if isinstance(node, ast.Dict):
            entries = [(k, v, v) for k, v in zip(node.keys, node.values) if k is not None]
        elif isinstance(node, ast.For):
            entries = list(_name_pair_entries(ctx, node))
        elif not self._is_elif(ctx, node):
            entries = list(self._chain_entries(node))
        else:
            return
        mapped = []
        for key, value, where in entries:
            source, target = _torch_name(ctx, key), _triton_name(ctx, value)
            if source in triton.TORCH_TO_TRITON and target is not None:
                mapped.append((source, target, where))
        if sum(triton.TORCH_TO_TRITON[s] == t for s, t, _ in mapped) < 2:
            return
        wrong = []
        for source, target, where in mapped:
            exact = triton.TORCH_TO_TRITON[source]
            if target == exact:
                continue
            if triton.BITS[target] != triton.BITS[exact]:
                why = f"{triton.BITS[exact]}-bit `torch.{source}` as {triton.BITS[target]}-bit `tl.{target}`"
            elif {target, exact} <= _FLOATS:
                why = f"`torch.{source}` bits as another format"
            else:
                continue
            wrong.append((source, target, exact, why, where))
        if not wrong:
            return
        uses = uses_of_table(ctx, node)
        if uses.values_only:
            return  # every kernel it reaches converts values to the type: a compute-type table
        facts = tuple([Because(use) for use in uses.pointers]
                      + [Because(f"{use} converts values to it") for use in uses.values]
                      + ([] if uses.complete else [Because("not every lookup of the table could be followed")]))
        for source, target, exact, why, where in wrong:
            pointer = f", where {uses.pointers[0]}" if uses.pointers else ""
            reached = uses.keys.known.get(source)
            trigger = f", and `torch.{source}` tensors are looked up ({reached})" if reached else ""
            yield Report(
                where,
                f"this dtype table maps `torch.{source}` to `tl.{target}`, which reads {why}{pointer}{trigger}: "
                f"use `tl.{exact}`",
                facts=facts,
            )

    @staticmethod
    def _is_elif(ctx, node):
        parent = ctx.parent(node)
        return isinstance(parent, ast.If) and len(parent.orelse) == 1 and parent.orelse[0] is node

    @staticmethod
    def _chain_entries(node):
        """(torch dtype expr, Triton dtype expr, node) of each branch of an if/elif chain that
        compares with one dtype and assigns or returns one value."""
        while isinstance(node, ast.If):
            test = node.test
            if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is))
                    and len(node.body) == 1):
                statement = node.body[0]
                value = statement.value if isinstance(statement, (ast.Assign, ast.Return)) else None
                if value is not None:
                    for side in (test.left, test.comparators[0]):
                        yield side, value, value
            node = node.orelse[0] if len(node.orelse) == 1 else None


def _torch_name(ctx, key) -> str | None:
    """The torch dtype an entry's key names: an expression (``torch.float16``) or, in a table of
    name pairs, the attribute name (``"float8_e5m2"``)."""
    if isinstance(key, str):
        return torch_dtype_named(key)
    return torch_dtype(ctx, key)


def _triton_name(ctx, value) -> str | None:
    if isinstance(value, str):
        return value if value in triton.TORCH_TO_TRITON.values() else None
    return triton_dtype(ctx, value)


def _getattr_of(ctx, node: ast.AST, module: str) -> str | None:
    """The name ``getattr(<module>, name)`` reads in ``node``, when ``node`` is such a call."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Name)
            and ctx.qualname(node.args[0]) == module):
        return node.args[1].id
    return None


def _name_pair_entries(ctx, loop: ast.For):
    """(torch dtype name, Triton dtype name, the pair's node) of a table written as string pairs
    and turned into dtypes in a loop: ``for t, l in PAIRS: MAP[getattr(torch, t)] = getattr(tl, l)``
    (the seed's float8 form), with ``PAIRS`` a literal list or tuple of 2-tuples of strings, also
    through a name."""
    target = loop.target
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts)):
        return
    first, second = (e.id for e in target.elts)
    torch_side = {_getattr_of(ctx, n, "torch") for n in ast.walk(loop)} - {None}
    triton_side = {_getattr_of(ctx, n, triton.TL.rstrip(".")) for n in ast.walk(loop)} - {None}
    if torch_side == {first} and triton_side == {second}:
        order = (0, 1)
    elif torch_side == {second} and triton_side == {first}:
        order = (1, 0)
    else:
        return
    for table in ctx.values_of(loop.iter):
        if not isinstance(table, (ast.List, ast.Tuple)):
            continue
        for pair in table.elts:
            if (isinstance(pair, (ast.Tuple, ast.List)) and len(pair.elts) == 2
                    and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in pair.elts)):
                yield pair.elts[order[0]].value, pair.elts[order[1]].value, pair
        return
