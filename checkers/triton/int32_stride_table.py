"""KL102 int32-stride-table: Strides or addresses stored as torch.int32 for a Triton kernel
overflow past 2^31 elements."""
from __future__ import annotations

import ast
import re

from kernelint.checkers.triton.helpers import SEED
from kernelint.edits import replace_attribute_name
from kernelint.findings import Fix, Severity
from kernelint.model.core.calls import argument
from kernelint.model.dsl import triton
from kernelint.model.triton.dtypes import (
    conversion_target,
    torch_dtype,
    triton_dtype,
)
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree

_TENSOR_CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray"})


#: Methods whose values are element strides or element offsets into memory.
_ADDRESS_METHODS = frozenset({"stride", "data_ptr", "storage_offset"})


_DEPTH = 4


#: Name parts that mean a stride: ``stride``/``strides`` and BLAS leading dimensions
#: (``ld``, ``lda``, ``ldb``, ``lds``, as in ``g_lds``).
_STRIDE_WORD = re.compile(r"strides?|ld[a-z]?s?")
#: Calls that turn sizes into their prefix sums: element offsets when the sizes count elements.
_PREFIX_SUMS = frozenset({"torch.cumsum", "itertools.accumulate", "numpy.cumsum"})
#: Calls and methods whose value counts the elements of a tensor or shape.
_ELEMENT_COUNTS = frozenset({"math.prod", "numpy.prod"})
_ELEMENT_COUNT_METHODS = frozenset({"numel", "nelement"})


def _is_stride_name(name: str) -> bool:
    return any(_STRIDE_WORD.fullmatch(part) for part in re.split(r"[^a-z]+", name.lower()))


def _int64_fix(call: ast.Call, ctx) -> Fix | None:
    """``dtype=torch.int32`` / ``.to(torch.int32)`` -> ``torch.int64``, ``.int()`` -> ``.long()``;
    None when the dtype is not written as an attribute of torch here (a variable, a bare name)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "int" and not call.args:
        return Fix("Build the table as int64 (.long())", (replace_attribute_name(func, "long"),))
    dtype = argument(call, "dtype")
    if dtype is None and isinstance(func, ast.Attribute) and func.attr == "to" and call.args:
        dtype = call.args[0]
    if isinstance(dtype, ast.Attribute) and dtype.attr == "int32" and ctx.qualname(dtype) == "torch.int32":
        return Fix("Build the table as torch.int64", (replace_attribute_name(dtype, "int64"),))
    return None


def _int32_table(call: ast.Call, ctx) -> tuple[ast.expr, bool] | None:
    """The data of a host tensor built as int32 (``torch.tensor(data, dtype=torch.int32)``,
    ``torch.tensor(data).to(torch.int32)`` / ``.int()``), and whether the table holds its prefix
    sums (``torch.tensor(sizes).cumsum(0).int()``, ``torch.cumsum(t, 0, dtype=torch.int32)``)."""
    func = call.func
    if ctx.call_name(call) in _TENSOR_CONSTRUCTORS and call.args:
        dtype = argument(call, "dtype")
        return (call.args[0], False) if torch_dtype(ctx, dtype) == "int32" else None
    if ctx.call_name(call) == "torch.cumsum" and call.args:
        found = _host_data(call.args[0], ctx) if torch_dtype(ctx, argument(call, "dtype")) == "int32" else None
        return (found[0], True) if found else None
    if isinstance(func, ast.Attribute):
        dtype = argument(call, "dtype", 0)
        if (func.attr == "int" and not call.args) or (func.attr == "to" and torch_dtype(ctx, dtype) == "int32"):
            return _host_data(func.value, ctx)
    return None


def _host_data(expr: ast.expr, ctx) -> tuple[ast.expr, bool] | None:
    """The Python data a host tensor expression was built from, and whether a prefix sum of it
    was taken on the way (``torch.cumsum``, ``.cumsum``); value-keeping methods are looked through."""
    if not isinstance(expr, ast.Call):
        return None
    if ctx.call_name(expr) in _TENSOR_CONSTRUCTORS and expr.args:
        return expr.args[0], False
    if ctx.call_name(expr) == "torch.cumsum" and expr.args:
        inner = _host_data(expr.args[0], ctx)
        return (inner[0], True) if inner else None
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr in ("cumsum", "cuda", "to", "contiguous"):
        inner = _host_data(func.value, ctx)
        return (inner[0], inner[1] or func.attr == "cumsum") if inner else None
    return None


def _element_offsets(data: ast.expr, summed: bool, ctx, depth: int = _DEPTH) -> bool:
    """``data`` holds offsets of tensors packed one after another: prefix sums of element counts,
    summed by the table (``summed``), by ``itertools.accumulate``/``np.cumsum``, or by a running
    total (``offsets.append(total); total += t.numel()``). Prefix sums of rows or tokens
    (``cu_seqlens``) are not element offsets."""
    if summed and _counts_elements(data, ctx, depth):
        return True
    for node in ast.walk(data):
        if isinstance(node, ast.Call) and ctx.call_name(node) in _PREFIX_SUMS and node.args:
            if _counts_elements(node.args[0], ctx, depth):
                return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and depth > 0:
            for definition in ctx.definitions(node.id, node):
                added = definition.node
                if (
                    isinstance(added, ast.AugAssign) and isinstance(added.op, ast.Add)
                    and _counts_elements(added.value, ctx, depth - 1)
                ):
                    return True
            grown = [v for v in ctx.values_of(node, depth=2) if v is not None and v is not data]
            if any(_element_offsets(v, False, ctx, depth - 1) for v in grown + ctx.list_growth(node)):
                return True
    return False


def _counts_elements(expr: ast.AST, ctx, depth: int = _DEPTH) -> bool:
    """``expr`` is a number of elements: ``t.numel()``, ``math.prod(shape)``, or a product of two
    sizes that are not literals (``m * k``); a row or token count alone is not."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and (
            ctx.call_name(node) in _ELEMENT_COUNTS
            or (isinstance(node.func, ast.Attribute) and node.func.attr in _ELEMENT_COUNT_METHODS and not node.args)
        ):
            return True
        if (
            isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
            and ctx.resolve_int(node.left) is None and ctx.resolve_int(node.right) is None
        ):
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and depth > 0:
            values = [v for v in ctx.values_of(node, depth=2) if v is not None and v is not expr]
            if any(_counts_elements(v, ctx, depth - 1) for v in values + ctx.list_growth(node)):
                return True
    return False


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
            if any(_holds_strides(grown, ctx, depth - 1) for grown in ctx.list_growth(node)):
                return True
    return False


def _widened_in_kernel(param: ast.arg, kernel, ctx) -> bool:
    """Every load through ``param`` in the kernel is converted to int64 right away."""
    loads = [
        node for node in subtree(kernel.node)
        if ctx.is_call(node, triton.LOAD) and node.args
        and any(isinstance(n, ast.Name) and n.id == param.arg for n in ast.walk(node.args[0]))
    ]
    return bool(loads) and all(_converted_to_int64(load, ctx) for load in loads)


def _converted_to_int64(load: ast.Call, ctx) -> bool:
    attribute = ctx.parent(load)
    outer = ctx.parent(attribute) if attribute is not None else None
    return (
        isinstance(outer, ast.Call)
        and outer.func is attribute
        and triton_dtype(ctx, conversion_target(ctx, outer)) == "int64"
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
    calls = _TENSOR_CONSTRUCTORS | {"torch.cumsum", ".int", ".to"}
    doc = """
## What it does
Flags host code that builds a tensor of strides or addresses with `dtype=torch.int32`
(`torch.tensor([a.stride(0) for a in As], dtype=torch.int32)`, also `.to(torch.int32)` and
`.int()`) when that tensor is passed to a Triton kernel launched in the same file. The data
counts as strides when it is built from `.stride()`, `.data_ptr()` or `.storage_offset()`, or
from names meaning a stride or a BLAS leading dimension (`stride_am`, `lda`, `ldb`, `g_lds`),
however the list was filled: a literal or comprehension, `append`, `extend`, `insert` or `+=`.
It also flags int32 tables of element offsets: prefix sums of element counts (`t.numel()`,
`m * k`), taken with `.cumsum()`, `itertools.accumulate` or a running total appended in a loop,
which locate tensors packed one after another in one buffer.

It stays silent for int32 tensors of anything else (token ids, counts, sequence lengths, and
prefix sums of row or token counts such as `cu_seqlens`), and when the kernel converts every
value it loads from the table to `tl.int64` right away.

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
        table = _int32_table(node, ctx)
        if table is None or ctx.kernel_of(node) is not None:
            return
        data, summed = table
        if not _holds_strides(data, ctx) and not _element_offsets(data, summed, ctx):
            return
        launch, param = ctx.launch_receiving(node, imported=True)
        if launch is None or (param is not None and _widened_in_kernel(param, launch.kernel, launch.kernel_ctx or ctx)):
            return
        if _holds_strides(data, ctx):
            what, why = "strides/addresses", "`index * stride` wraps past 2^31 elements"
        else:
            what, why = "element offsets (prefix sums of sizes)", "offsets past 2^31 elements wrap"
        yield Report(node, f"{what} stored as torch.int32 and passed to `{launch.kernel.name}`: "
                           f"{why}; use dtype=torch.int64",
                     fix=_int64_fix(node, ctx))

