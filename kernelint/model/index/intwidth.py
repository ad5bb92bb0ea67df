"""32-bit integer arithmetic in Triton kernels: which scalar values are int32 row indices, which
are widened to int64, and which products of an index and a run-time size feed an address.

Triton types ``tl.program_id`` as int32, and an integer kernel argument as int32 whenever its
value fits (it becomes int64 only when it does not). ``row * stride`` of two int32 values is
computed in 32 bits and wraps once the product passes 2^31 - 1, although each factor fits: the
address then points far outside the tensor. A value is int64 once it was converted
(``x.to(tl.int64)``, ``tl.cast(x, tl.int64)``) or combined with an int64 value; the conversion
must come before the product (``(row * stride).to(tl.int64)`` converts the wrapped value).

An *index* here is a scalar that counts rows: the program id (and arithmetic on it, such as
``pid // num_heads``) or a value loaded from an index table (``tl.load(cu_seqlens + b)``).
Vectors built with ``tl.arange`` are tile offsets, not indices, and are left out. A program id
times a ``tl.constexpr`` (``pid * BLOCK``) counts tiles and is not a row offset; a loaded index
(a token offset) times any size is.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core.dataflow import bound_values, from_arange
from kernelint.model.dsl import triton
from kernelint.model.triton.dtypes import conversion_target, triton_dtype
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.core.memo import kept_on, remembered
from kernelint.model.core.walk import children, subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_DEPTH = 12
_NEVER = 1 << 30  # a depth no question reaches
#: Arithmetic that keeps an index an index (``pid // n``, ``pid % n``, ``b * H + h``).
_INDEX_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
#: Calls whose pointer argument is an address the kernel dereferences or builds a block from.
_ADDRESS_CALLS = {
    triton.LOAD: "pointer", triton.STORE: "pointer", triton.MAKE_BLOCK_PTR: "base",
    triton.MAKE_TENSOR_DESCRIPTOR: "base", **{a: "pointer" for a in triton.ATOMICS},
}


def is_int64(ctx: "FileContext", expr: ast.AST, depth: int = _DEPTH) -> bool:
    """``expr`` is certainly a 64-bit integer: converted to int64, or arithmetic with an int64
    operand (Triton promotes the other one), seen within ``depth`` steps.

    The answer can only turn from False to True as ``depth`` grows (each step is an ``or`` of
    operands or an ``all`` over definitions, each one step deeper), so one entry per node keeps
    the least depth it was True at and the greatest it was False at, and answers every depth
    those decide. Kept per depth, an index's operands were looked at again from each level of
    ``index_origin``: the products of mamba's ``ssd_chunk_scan.py`` took 41 ms, now 36."""
    known = kept_on(ctx, "int64_depths")
    entry = known.get(id(expr))
    if entry is None:
        entry = known[id(expr)] = [expr, _NEVER, 0]  # the node, True from, False up to
    if depth >= entry[1]:
        return True
    if depth <= entry[2]:
        return False
    answer = _is_int64(ctx, expr, depth)
    if answer:
        entry[1] = min(entry[1], depth)
    else:
        entry[2] = max(entry[2], depth)
    return answer


def _is_int64(ctx: "FileContext", expr: ast.AST, depth: int) -> bool:
    if depth <= 0:
        return False
    if isinstance(expr, ast.Call):
        target = conversion_target(ctx, expr)
        return target is not None and triton_dtype(ctx, target) in ("int64", "uint64")
    if isinstance(expr, ast.BinOp):
        return is_int64(ctx, expr.left, depth - 1) or is_int64(ctx, expr.right, depth - 1)
    if isinstance(expr, ast.UnaryOp):
        return is_int64(ctx, expr.operand, depth - 1)
    if isinstance(expr, ast.Name):
        definitions = reaching_definitions(ctx, expr)
        return bool(definitions) and all(_definition_is_int64(ctx, d, depth - 1) for d in definitions)
    return False


def _definition_is_int64(ctx: "FileContext", definition, depth: int) -> bool:
    node = definition.node
    if isinstance(node, ast.AugAssign):
        return is_int64(ctx, node.value, depth) or is_int64(ctx, node.target, depth)
    if isinstance(node, ast.arg):
        return triton_dtype(ctx, node.annotation) in ("int64", "uint64") if node.annotation is not None else False
    return definition.value is not None and is_int64(ctx, definition.value, depth)


def index_origin(ctx: "FileContext", expr: ast.AST, depth: int = _DEPTH) -> ast.Call | None:
    """The ``tl.program_id`` or scalar ``tl.load`` an int32 row index ``expr`` is computed from;
    None when ``expr`` is not such an index (a vector, a parameter, anything int64)."""
    return remembered(ctx, "index_origin", expr, lambda: _index_origin(ctx, expr, depth), depth)


def _index_origin(ctx: "FileContext", expr: ast.AST, depth: int) -> ast.Call | None:
    if depth <= 0 or is_int64(ctx, expr):
        return None
    if isinstance(expr, ast.Call):
        name = ctx.call_name(expr)
        if name == triton.PROGRAM_ID:
            return expr
        if name == triton.LOAD and _scalar_load(ctx, expr):
            return expr
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _INDEX_OPS):
        return index_origin(ctx, expr.left, depth - 1) or index_origin(ctx, expr.right, depth - 1)
    if isinstance(expr, ast.Name):
        for definition in reaching_definitions(ctx, expr):
            node = definition.node
            value = node.value if isinstance(node, ast.AugAssign) else definition.value
            if definition.kind in ("assign", "augassign") and value is not None:
                origin = index_origin(ctx, value, depth - 1)
                if origin is not None:
                    return origin
    return None


def _scalar_load(ctx: "FileContext", load: ast.Call) -> bool:
    """A load of one element (its address has no ``tl.arange`` lane offsets)."""
    pointer = load.args[0] if load.args else None
    return pointer is not None and not from_arange(ctx, pointer)


def runtime_size(ctx: "FileContext", kernel: "Kernel", expr: ast.AST, constexprs: bool = False,
                 depth: int = _DEPTH) -> ast.Name | None:
    """The non-constexpr integer parameter of ``kernel`` (a stride, a row length, a sequence
    length) that ``expr`` is, or is a product of (with ``constexprs``, a constexpr parameter
    too); None for literals and int64 values."""
    if depth <= 0 or is_int64(ctx, expr):
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        return (runtime_size(ctx, kernel, expr.left, constexprs, depth - 1)
                or runtime_size(ctx, kernel, expr.right, constexprs, depth - 1))
    if not isinstance(expr, ast.Name):
        return None
    definitions = reaching_definitions(ctx, expr)
    if len(definitions) != 1:
        return None
    node = definitions[0].node
    if isinstance(node, ast.arg):
        return expr if id(node) in kernel.param_ids and (constexprs or not kernel.is_constexpr(node, ctx.qualname)) else None
    if definitions[0].kind == "assign" and definitions[0].value is not None:
        return runtime_size(ctx, kernel, definitions[0].value, constexprs, depth - 1)
    return None


@dataclass(frozen=True)
class WideningProduct:
    """``index * size`` computed in int32 where it builds an address."""

    product: ast.BinOp
    origin: ast.Call
    size: ast.Name


def int32_address_products(ctx: "FileContext", kernel: "Kernel") -> list[WideningProduct]:
    """Products of an int32 row index and a run-time size that feed a load, store, atomic or
    block-pointer/descriptor base of ``kernel``, outermost first, each reported once. One walk
    over all the addresses of the kernel: every expression and binding is looked at once."""
    found: list[WideningProduct] = []
    inside_found: set[int] = set()
    visited: set[int] = set()
    stack: list[tuple[ast.AST, int]] = []
    for call in subtree(kernel.node):
        if isinstance(call, ast.Call) and ctx.call_name(call) in _ADDRESS_CALLS:
            keyword = _ADDRESS_CALLS[ctx.call_name(call)]
            address = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == keyword), None)
            if address is not None:
                stack.append((address, 0))
    while stack:
        node, depth = stack.pop()
        if id(node) in visited or id(node) in inside_found:
            continue
        visited.add(id(node))
        if ctx.is_call(node, triton.LOAD):
            continue  # a loaded value is data, not this address
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            product = _widening_product(ctx, kernel, node)
            if product is not None:
                inside_found.update(id(n) for n in ast.walk(product.product))
                found.append(product)
                continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if depth < _DEPTH:
                for value in bound_values(ctx, node):
                    stack.append((value, depth + 1))
        elif not isinstance(node, ast.Lambda):
            stack.extend((child, depth) for child in children(node))
    return found


def _widening_product(ctx: "FileContext", kernel: "Kernel", node: ast.BinOp) -> WideningProduct | None:
    """``node`` as an int32 index times a size, grown to the outermost product it sits in."""
    for index, size in ((node.left, node.right), (node.right, node.left)):
        origin = index_origin(ctx, index)
        if origin is None or from_arange(ctx, index):
            continue  # not an index, or an offset vector
        # A loaded index counts tokens or rows of the whole input: any size scales it past 2^31;
        # a program id times a constexpr counts tiles.
        loaded = ctx.call_name(origin) == triton.LOAD
        runtime = runtime_size(ctx, kernel, size, loaded)
        if runtime is not None:
            outer = node
            while isinstance(ctx.parent(outer), ast.BinOp) and isinstance(ctx.parent(outer).op, ast.Mult):
                outer = ctx.parent(outer)
            return WideningProduct(outer, origin, runtime)
    return None
