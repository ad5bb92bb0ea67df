"""Transaction bytes on CuTe DSL mbarriers: how many bytes an ``expect_tx`` arms a barrier for,
and how many bytes the TMA loads that complete on that barrier deliver.

Bytes are folded only where they are fixed while the kernel is traced: integer constants,
``cute.size_in_bytes(dtype, layout)`` and ``cute.size(layout) * dtype.width // 8`` with an
element type of fixed width (``cutlass.Float16``) and a layout of constant shape
(``cute.make_layout((128, 64))``, ``cute.slice_`` / ``cute.select`` of one), and sums and products
of these. An element type read from a tensor at run time (``mA.element_type``) folds to nothing,
and so does every expression built from it: the rules that use this module stay silent there.

A TMA load's bytes are the bytes of the shared-memory tensor it writes: the destination of
``cute.copy(atom, src, dst, tma_bar_ptr=bar)`` is traced back through ``cpasync.tma_partition``
and ``cute.group_modes`` to an allocation of known element type and layout
(``smem.allocate_tensor(cutlass.Float16, layout)``). The atom must be shown to be a plain
single-CTA TMA load (``make_tiled_tma_atom(CopyBulkTensorTileG2SOp(), ...)``, followed through
the kernel's launches); with ``cta_group=CtaGroup.TWO`` the leader CTA's barrier also counts the
peer CTA's copy, so the bytes are doubled. Multicast loads are not counted.
"""
from __future__ import annotations

import ast
import math
from typing import TYPE_CHECKING

from kernelint.model.core.calls import argument
from kernelint.model.cute.static import cute_int, single_binding
from kernelint.model.dsl.cute import (
    COPY,
    CTA_GROUP_SIZES,
    DTYPE_BITS,
    EXPECT_TX,
    GROUP_MODES,
    LAYOUT_MAKERS,
    MAKE_TMA_ATOM,
    SIZE,
    SIZE_IN_BYTES,
    SLICE,
    TMA_LOAD_OP,
    TMA_LOAD_PIPELINES,
    TMA_PARTITION,
)

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_MAX_DEPTH = 6
Shape = tuple  # nested tuples of ints


# --- element types and layouts ----------------------------------------------------------------


def dtype_bits(ctx: "FileContext", expr: ast.expr | None, depth: int = _MAX_DEPTH) -> int | None:
    """Width in bits of the element type ``expr`` names (``cutlass.BFloat16``, a name or
    ``self.<attr>`` bound once to one); None for a type only known at run time."""
    if expr is None or depth <= 0:
        return None
    bits = DTYPE_BITS.get(ctx.qualname(expr) or "")
    if bits is not None:
        return bits
    value = single_binding(ctx, expr)
    return dtype_bits(ctx, value, depth - 1) if value is not None else None


def _shape(ctx: "FileContext", expr: ast.expr | None, depth: int) -> Shape | int | None:
    """A constant (nested) shape: an int or a tuple of them."""
    if expr is None or depth <= 0:
        return None
    if isinstance(expr, ast.Tuple):
        modes = tuple(_shape(ctx, e, depth - 1) for e in expr.elts)
        return None if any(m is None for m in modes) else modes
    value = cute_int(ctx, expr)
    if value is not None:
        return value
    bound = single_binding(ctx, expr)
    return _shape(ctx, bound, depth - 1) if bound is not None else None


def _size(shape: Shape | int) -> int:
    return shape if isinstance(shape, int) else math.prod(_size(m) for m in shape)


def layout_shape(ctx: "FileContext", expr: ast.expr | None, depth: int = _MAX_DEPTH) -> Shape | None:
    """The constant top-level shape of a layout: ``cute.make_layout(shape, ...)``,
    ``cute.make_ordered_layout(shape, order=...)``, ``cute.slice_(layout, coord)`` (the modes the
    coordinate leaves free), through names bound once."""
    if expr is None or depth <= 0:
        return None
    if not isinstance(expr, ast.Call):
        bound = single_binding(ctx, expr)
        return layout_shape(ctx, bound, depth - 1) if bound is not None else None
    name = ctx.call_name(expr)
    if name in LAYOUT_MAKERS:
        shape = _shape(ctx, argument(expr, "shape", 0), _MAX_DEPTH)
        return (shape,) if isinstance(shape, int) else shape
    if name == SLICE and len(expr.args) == 2:
        shape = layout_shape(ctx, expr.args[0], depth - 1)
        coord = expr.args[1]
        if shape is None or not isinstance(coord, ast.Tuple) or len(coord.elts) != len(shape):
            return None
        return tuple(m for m, c in zip(shape, coord.elts) if isinstance(c, ast.Constant) and c.value is None)
    return None


def layout_size(ctx: "FileContext", expr: ast.expr | None) -> int | None:
    shape = layout_shape(ctx, expr)
    return _size(shape) if shape is not None else None


# --- byte counts ------------------------------------------------------------------------------


def folded_bytes(ctx: "FileContext", expr: ast.expr | None, depth: int = _MAX_DEPTH) -> int | None:
    """The byte count ``expr`` folds to while tracing, or None (see the module doc)."""
    if expr is None or depth <= 0:
        return None
    value = cute_int(ctx, expr)
    if value is not None:
        return value
    if isinstance(expr, ast.Call):
        name = ctx.call_name(expr)
        if name == SIZE_IN_BYTES and len(expr.args) == 2:
            bits, size = dtype_bits(ctx, expr.args[0]), layout_size(ctx, expr.args[1])
            return (bits * size + 7) // 8 if bits is not None and size is not None else None
        if name == SIZE and len(expr.args) == 1 and not expr.keywords:
            return layout_size(ctx, expr.args[0])
        return None
    if isinstance(expr, ast.Attribute) and expr.attr == "width":
        return dtype_bits(ctx, expr.value)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Mult, ast.FloorDiv, ast.Sub)):
        left, right = folded_bytes(ctx, expr.left, depth - 1), folded_bytes(ctx, expr.right, depth - 1)
        if left is None or right is None:
            return None
        if isinstance(expr.op, ast.Add):
            return left + right
        if isinstance(expr.op, ast.Sub):
            return left - right
        if isinstance(expr.op, ast.Mult):
            return left * right
        return left // right if right else None
    bound = single_binding(ctx, expr)
    return folded_bytes(ctx, bound, depth - 1) if bound is not None else None


def expect_tx(ctx: "FileContext", call: ast.Call) -> tuple[ast.expr, ast.expr] | None:
    """``(barrier, bytes)`` of an ``mbarrier_(arrive_and_)expect_tx`` on this CTA's barrier;
    None for any other call, or one that arms a peer CTA's barrier."""
    positions = EXPECT_TX.get(ctx.call_name(call) or "")
    if positions is None:
        return None
    if argument(call, "peer_cta_rank_in_cluster", 2) is not None:
        return None
    barrier, count = argument(call, "mbar_ptr", positions[0]), argument(call, "bytes", positions[1])
    return (barrier, count) if barrier is not None and count is not None else None


# --- TMA loads --------------------------------------------------------------------------------


def _unpacked_from(ctx: "FileContext", name: ast.Name) -> tuple[ast.Call, int] | None:
    """``(call, i)`` when ``name`` has one binding, the i-th element of a tuple unpacked from
    ``call`` (``a, b = f(...)``)."""
    definitions = ctx.definitions(name.id, name)
    if len(definitions) != 1:
        return None
    statement = definitions[0].node
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Tuple) and isinstance(statement.value, ast.Call)):
        return None
    for i, element in enumerate(statement.targets[0].elts):
        if isinstance(element, ast.Name) and element.id == name.id:
            return statement.value, i
    return None


def tma_atom_factory(ctx: "FileContext", expr: ast.expr, depth: int = 4) -> ast.Call | None:
    """The ``make_tiled_tma_atom(...)`` call whose atom ``expr`` holds: bound by unpacking it
    directly, or a kernel parameter that every launch of the kernel in this file binds to one
    atom made by the same call."""
    if depth <= 0 or not isinstance(expr, ast.Name):
        return None
    unpacked = _unpacked_from(ctx, expr)
    if unpacked is not None:
        call, index = unpacked
        return call if index == 0 and ctx.call_name(call) in MAKE_TMA_ATOM else None
    definitions = ctx.definitions(expr.id, expr)
    if len(definitions) != 1 or definitions[0].kind != "param":
        return None
    kernel = ctx.kernel_of(expr, "cute")
    if kernel is None:
        return None
    factories = set()
    for launch in ctx.launches_of("cute"):
        if launch.kernel is not kernel:
            continue
        bound = launch.bound_arguments().get(expr.id)
        factory = tma_atom_factory(ctx, bound, depth - 1) if bound is not None else None
        if factory is None:
            return None
        factories.add(factory)
    return factories.pop() if len(factories) == 1 else None


def tma_load_factor(ctx: "FileContext", factory: ast.Call) -> int | None:
    """How many CTAs' copies one TMA load of this atom completes on the issuing CTA's barrier:
    1 for ``CopyBulkTensorTileG2SOp()``, 2 with ``cta_group=CtaGroup.TWO``; None for any other
    op (multicast, gather, stores) or an argument that does not fold."""
    op = argument(factory, "op", 0)
    if not isinstance(op, ast.Call) or (ctx.call_name(op) or "").rsplit(".", 1)[-1] != TMA_LOAD_OP:
        return None
    if argument(factory, "num_multicast") is not None and cute_int(ctx, argument(factory, "num_multicast")) != 1:
        return None
    group = argument(op, "cta_group", 0)
    if group is None and not op.keywords:
        return 1
    name = ctx.qualname(group) if group is not None else None
    if name is None or op.keywords and any(k.arg != "cta_group" for k in op.keywords):
        return None
    return next((size for suffix, size in CTA_GROUP_SIZES.items() if name.endswith(suffix)), None)


def _smem_allocation(ctx: "FileContext", expr: ast.expr, depth: int = _MAX_DEPTH) -> tuple[int, Shape] | None:
    """``(element bits, layout shape)`` of the shared-memory tensor ``expr`` holds:
    ``<allocator>.allocate_tensor(dtype, layout, ...)``, through names bound once."""
    if depth <= 0:
        return None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "allocate_tensor":
        bits = dtype_bits(ctx, argument(expr, "element_type", 0))
        shape = layout_shape(ctx, argument(expr, "layout", 1))
        return (bits, shape) if bits is not None and shape is not None else None
    bound = single_binding(ctx, expr)
    return _smem_allocation(ctx, bound, depth - 1) if bound is not None else None


def tma_load_bytes(ctx: "FileContext", copy: ast.Call) -> int | None:
    """Bytes that ``cute.copy(atom, src, dst, tma_bar_ptr=...)`` completes on its barrier, or None
    when that is not shown (see the module doc)."""
    if ctx.call_name(copy) != COPY or len(copy.args) < 3 or argument(copy, "mcast_mask") is not None:
        return None
    factory = tma_atom_factory(ctx, copy.args[0])
    factor = tma_load_factor(ctx, factory) if factory is not None else None
    if factor is None:
        return None
    dst = copy.args[2]
    index = None
    if isinstance(dst, ast.Subscript):
        index, dst = dst.slice, dst.value
    if not isinstance(dst, ast.Name):
        return None
    unpacked = _unpacked_from(ctx, dst)
    if unpacked is None or unpacked[1] != 0 or ctx.call_name(unpacked[0]) not in TMA_PARTITION:
        return None
    smem_view = argument(unpacked[0], "smem_tensor", 3)
    grouped = None
    if isinstance(smem_view, ast.Call) and ctx.call_name(smem_view) == GROUP_MODES and len(smem_view.args) == 3:
        begin, end = cute_int(ctx, smem_view.args[1]), cute_int(ctx, smem_view.args[2])
        if begin != 0 or end is None:
            return None
        grouped, smem_view = end, smem_view.args[0]
    allocation = _smem_allocation(ctx, smem_view) if smem_view is not None else None
    if allocation is None:
        return None
    bits, shape = allocation
    if index is None:
        elements = _size(shape)
    else:
        # dst[(None, i, ...)]: the grouped (TMA) mode whole, one element of each other mode.
        coords = index.elts if isinstance(index, ast.Tuple) else [index]
        if grouped is None or len(coords) != 1 + len(shape) - grouped or not (
                isinstance(coords[0], ast.Constant) and coords[0].value is None) or any(
                isinstance(c, ast.Constant) and c.value is None or isinstance(c, ast.Slice) for c in coords[1:]):
            return None
        elements = _size(shape[:grouped])
    return factor * ((bits * elements + 7) // 8)


def tma_barrier(copy: ast.Call) -> ast.expr | None:
    """The barrier a ``cute.copy`` completes on (its ``tma_bar_ptr``)."""
    return argument(copy, "tma_bar_ptr")


#: The calls ``tma_pipeline_tx_count`` can answer for.
TMA_PIPELINE_CREATES = frozenset(pipeline + ".create" for pipeline in TMA_LOAD_PIPELINES)


def tma_pipeline_tx_count(ctx: "FileContext", call: ast.Call) -> tuple[str, ast.expr] | None:
    """``(name, tx_count)`` for ``name = PipelineTmaAsync.create(..., tx_count=n, ...)`` (a TMA load
    pipeline bound to a local name or ``self.<attr>``); None for any other call."""
    name = ctx.call_name(call) or ""
    if not name.endswith(".create") or name[: -len(".create")] not in TMA_LOAD_PIPELINES:
        return None
    count = argument(call, "tx_count")
    holder = ctx.parent(call)
    if count is None or not isinstance(holder, ast.Assign) or len(holder.targets) != 1 or holder.value is not call:
        return None
    target = holder.targets[0]
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return None
    return ast.unparse(target), count


def pipeline_barrier_of(barrier: ast.expr | None) -> str | None:
    """The pipeline (as spelled) whose stage barrier ``barrier`` is:
    ``<pipeline>.producer_get_barrier(state)``."""
    if (isinstance(barrier, ast.Call) and isinstance(barrier.func, ast.Attribute)
            and barrier.func.attr == "producer_get_barrier"):
        return ast.unparse(barrier.func.value)
    return None
