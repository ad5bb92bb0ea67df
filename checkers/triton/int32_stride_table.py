"""KL102 int32-stride-table: Strides or addresses stored as torch.int32 for a Triton kernel
overflow past 2^31 elements."""
from __future__ import annotations

import ast
import re

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Severity
from kernelint.model.dtypes import (
    conversion_target,
    torch_dtype,
    triton_dtype,
)
from kernelint.rules import Report, Rule

_LOAD = "triton.language.load"


_TENSOR_CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray"})


#: Methods whose values are element strides or element offsets into memory.
_ADDRESS_METHODS = frozenset({"stride", "data_ptr", "storage_offset"})


_CHAIN_METHODS = frozenset({"cuda", "to", "contiguous", "pin_memory"})


_LIST_GROWERS = frozenset({"append", "extend", "insert"})


_DEPTH = 4


def _is_stride_name(name: str) -> bool:
    return bool({"stride", "strides"} & set(re.split(r"[^a-z]+", name.lower())))


def _int32_table(call: ast.Call, ctx) -> ast.expr | None:
    """The data of a host tensor built as int32: ``torch.tensor(data, dtype=torch.int32)`` or
    ``torch.tensor(data).to(torch.int32)`` / ``.int()``."""
    func = call.func
    if ctx.call_name(call) in _TENSOR_CONSTRUCTORS and call.args:
        dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
        return call.args[0] if torch_dtype(dtype, ctx) == "int32" else None
    if isinstance(func, ast.Attribute) and ctx.is_call(func.value, *_TENSOR_CONSTRUCTORS) and func.value.args:
        dtype = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "dtype"), None)
        if (func.attr == "int" and not call.args) or (func.attr == "to" and torch_dtype(dtype, ctx) == "int32"):
            return func.value.args[0]
    return None


def _holds_strides(expr: ast.AST, ctx, depth: int = _DEPTH) -> bool:
    """``expr`` is built from ``.stride()``/``.data_ptr()``/``.storage_offset()`` values or from
    variables named for strides, following names (and lists grown with ``append``) a few steps."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _ADDRESS_METHODS:
            return True
        if isinstance(node, ast.Name) and _is_stride_name(node.id):
            return True
        if isinstance(node, ast.Attribute) and _is_stride_name(node.attr):
            return True
        if isinstance(node, ast.Name) and depth > 0:
            values = [v for v in ctx.values_of(node, depth=2) if v is not None and v is not expr]
            if any(_holds_strides(v, ctx, depth - 1) for v in values):
                return True
            if any(_holds_strides(grown, ctx, depth - 1) for grown in _grown_with(node, ctx)):
                return True
    return False


def _grown_with(name: ast.Name, ctx) -> list[ast.expr]:
    """What ``name.append(...)``/``extend``/``insert`` add to the list ``name`` in its scope."""
    scope = ctx.scope_of(name)
    added = []
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _LIST_GROWERS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name.id
        ):
            added.extend(node.args)
    return added


def _outermost_chain(expr: ast.expr, ctx) -> ast.expr:
    """``torch.tensor(...).to(dev).contiguous()`` from its innermost part."""
    node = expr
    while True:
        attribute = ctx.parent(node)
        outer = ctx.parent(attribute) if attribute is not None else None
        if (
            isinstance(attribute, ast.Attribute)
            and attribute.attr in _CHAIN_METHODS
            and isinstance(outer, ast.Call)
            and outer.func is attribute
        ):
            node = outer
        else:
            return node


def _launch_receiving(expr: ast.expr, ctx, depth: int = _DEPTH):
    """The Triton launch that receives the value of ``expr``, directly or through names, and the
    kernel parameter it binds; (None, None) if none in this file does."""
    expr = _outermost_chain(expr, ctx)
    holder = ctx.parent(expr)
    for launch in ctx.launches:
        if launch.kernel is None or launch.kernel.dsl != "triton":
            continue
        name = next((n for n, argument in launch.bound_arguments().items() if argument is expr), None)
        if name is not None:
            return launch, next((p for p in launch.kernel.params if p.arg == name), None)
        if any(argument is expr for argument in launch.args):
            return launch, None
    if depth > 0 and isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
        target = holder.targets[0].id
        for use in ast.walk(ctx.scope_of(holder)):
            if (
                isinstance(use, ast.Name)
                and use.id == target
                and isinstance(use.ctx, ast.Load)
                and any(d.node is holder for d in ctx.definitions(target, use))
            ):
                found = _launch_receiving(use, ctx, depth - 1)
                if found[0] is not None:
                    return found
    return None, None


def _widened_in_kernel(param: ast.arg, kernel, ctx) -> bool:
    """Every load through ``param`` in the kernel is converted to int64 right away."""
    loads = [
        node for node in ast.walk(kernel.node)
        if ctx.is_call(node, _LOAD) and node.args
        and any(isinstance(n, ast.Name) and n.id == param.arg for n in ast.walk(node.args[0]))
    ]
    return bool(loads) and all(_converted_to_int64(load, ctx) for load in loads)


def _converted_to_int64(load: ast.Call, ctx) -> bool:
    attribute = ctx.parent(load)
    outer = ctx.parent(attribute) if attribute is not None else None
    return (
        isinstance(outer, ast.Call)
        and outer.func is attribute
        and triton_dtype(conversion_target(outer, ctx), ctx) == "int64"
    )


class Int32StrideTable(Rule):
    code = "KL102"
    name = "int32-stride-table"
    family = "triton-pointers"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "crash"
    summary = "Strides or addresses stored as torch.int32 for a Triton kernel overflow past 2^31 elements."
    node_types = (ast.Call,)
    doc = """
## What it does
Flags host code that builds a tensor of strides or addresses with `dtype=torch.int32`
(`torch.tensor([a.stride(0) for a in As], dtype=torch.int32)`, also `.to(torch.int32)` and
`.int()`, and lists named `*stride*` or grown from `.stride()`, `.data_ptr()`,
`.storage_offset()`) when that tensor is passed to a Triton kernel launched in the same file.

It stays silent for int32 tensors of anything else (token ids, counts, sequence lengths, cu_seqlens),
and when the kernel converts every value it loads from the table to `tl.int64` right away.

## Why is this bad?
A stride loaded from an int32 table is an int32 scalar in the kernel, so `rows * stride` is
computed in 32 bits. Once a tensor spans more than 2^31 elements the product wraps to a negative
or small offset and the kernel reads and writes far outside the tensor, which ends in an illegal
memory access or corrupted memory. Addresses (`data_ptr()`) do not fit in int32 at all.

## Example
```python
strides = torch.tensor([a.stride(0) for a in As], dtype=torch.int32, device="cuda")
grouped_kernel[grid](ptrs, strides, ...)
```

## Use instead
```python
strides = torch.tensor([a.stride(0) for a in As], dtype=torch.int64, device="cuda")
grouped_kernel[grid](ptrs, strides, ...)
```

What the wrapped address hits decides the symptom. The pair's bad kernel died with an illegal
memory access on an H200; in an earlier layout of the same pair, where the wrapped address fell
inside another (cached) allocation, it returned wrong sums for the 512 rows past 2^31 elements
instead, without any error.
"""
    references = f"""
- {SEED}, 'Runtime errors', '`cudaErrorIllegalAddress`', 'Root Cause 2: int32 stride overflow'.
- {SEED}, 'Gotchas' table, row 'Stride dtype'.
"""

    def check(self, node, ctx):
        data = _int32_table(node, ctx)
        if data is None or ctx.kernel_of(node) is not None or not _holds_strides(data, ctx):
            return
        launch, param = _launch_receiving(node, ctx)
        if launch is None or (param is not None and _widened_in_kernel(param, launch.kernel, ctx)):
            return
        yield Report(node, f"strides/addresses stored as torch.int32 and passed to `{launch.kernel.name}`: "
                           f"`index * stride` wraps past 2^31 elements; use dtype=torch.int64")

