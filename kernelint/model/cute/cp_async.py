"""cp.async copies in CuTe DSL kernels: which shared-memory tensors they write, which views of
those tensors belong to the copying thread, and which later reads take elements other threads
copied.

``cp_async_wait_group(n)`` only tells the thread that executes it that *its own* copies have
landed. A view made by the same thread slice of the same tiled copy
(``thr = g2s.get_slice(tidx); tS = thr.partition_D(s)``) holds exactly the elements this thread
copied, so reading it needs no barrier. Every other view of the tensor (the tensor itself,
``thr_mma.partition_A(sA)``, an ldmatrix partition, a transposed composition) may hold elements
another thread copied.

A copy is a cp.async copy when it is ``cute.copy(tiled, src, dst)`` with ``tiled`` made (through
local names and the kernel's launches) by ``make_tiled_copy*`` / ``make_copy_atom`` over a
``cpasync.CopyG2SOp``, or a library copy helper called with ``is_async=True``
(``copy(src, dst, is_async=True)``, quack's spelling).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kernelint.model.core import calls_graph
from kernelint.model.core.calls import argument, callee_name
from kernelint.model.cute.static import single_binding
from kernelint.model.dsl.cute import COPY, CP_ASYNC_COMMIT, CP_ASYNC_G2S_OP
from kernelint.model.core.values import base_name
from kernelint.model.core.walk import subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_MAX_DEPTH = 8

#: Calls that build a tiled copy (or an atom) from the atom or op in their first argument.
_TILED_COPY_MAKERS = frozenset({
    "make_tiled_copy_tv", "make_tiled_copy", "make_tiled_copy_A", "make_tiled_copy_B", "make_tiled_copy_C",
    "make_tiled_copy_S", "make_tiled_copy_D", "make_cotiled_copy", "make_copy_atom",
})
#: Calls that make a view of a tensor (no memory is read): their result is the same memory.
VIEW_MAKERS = frozenset({
    "partition_S", "partition_D", "partition_A", "partition_B", "partition_C", "local_tile", "local_partition",
    "group_modes", "make_tensor", "composition", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
    "coalesce", "recast_tensor", "filter_zeros", "flatten", "slice_", "tma_partition", "select",
})
#: A thread slice's partitions of a tensor (the same slice partitions it the same way every time).
_THREAD_PARTITIONS = frozenset({"partition_S", "partition_D"})
#: Calls and methods that only read a tensor's shape or layout, or make a register tensor of its shape.
_METADATA_CALLS = frozenset({
    "size", "rank", "cosize", "depth", "shape", "size_in_bytes", "make_fragment_like", "make_rmem_tensor_like",
    "make_fragment", "make_rmem_tensor", "make_identity_tensor", "zeros_like", "full_like", "empty_like",
    "make_fragment_A", "make_fragment_B", "make_fragment_C", "partition_fragment_A", "partition_fragment_B",
    "partition_fragment_C", "retile",
})
_METADATA_ATTRIBUTES = frozenset({"shape", "layout", "element_type", "iterator", "memspace", "stride"})
_WRITE_METHODS = frozenset({"store", "fill"})


def is_cp_async_copier(ctx: "FileContext", expr: ast.expr | None, depth: int = _MAX_DEPTH) -> bool:
    """``expr`` holds a tiled copy or copy atom over ``cpasync.CopyG2SOp``."""
    if expr is None or depth <= 0:
        return False
    if isinstance(expr, ast.Call):
        last = callee_name(expr.func)
        if last == CP_ASYNC_G2S_OP:
            return True
        if last in _TILED_COPY_MAKERS and expr.args:
            return is_cp_async_copier(ctx, expr.args[0], depth - 1)
        helpers = ctx.local_functions_called(expr)
        if not helpers:
            return False
        # a helper of this file that returns one, or a copy-making helper handed a cp.async atom
        # (self._make_gmem_tiled_copy(atom, ...))
        returned = [r.value for h in helpers for r in subtree(h) if isinstance(r, ast.Return) and r.value is not None]
        if returned and all(is_cp_async_copier(ctx, r, depth - 1) for r in returned):
            return True
        return "copy" in (last or "").lower() and any(is_cp_async_copier(ctx, a, depth - 1) for a in expr.args)
    if not isinstance(expr, ast.Name):
        return False
    definitions = ctx.definitions(expr.id, expr)
    if len(definitions) != 1:
        return False
    if definitions[0].value is not None:
        return is_cp_async_copier(ctx, definitions[0].value, depth - 1)
    if definitions[0].kind != "param":
        return False
    kernel = ctx.kernel_of(expr, "cute")
    launches = [l for l in ctx.launches_of("cute") if kernel is not None and l.kernel is kernel]
    bound = [l.bound_arguments().get(expr.id) for l in launches]
    if not launches:  # a @cute.jit helper: what its callers in this file pass
        parameter = definitions[0].node
        bound = (calls_graph.arguments_for(ctx, parameter) or []) if isinstance(parameter, ast.arg) else []
    return bool(bound) and all(b is not None and is_cp_async_copier(ctx, b, depth - 1) for b in bound)


def cp_async_destination(ctx: "FileContext", call: ast.Call) -> ast.expr | None:
    """The destination of a cp.async copy call, or None for any other call."""
    if ctx.call_name(call) == COPY and len(call.args) >= 3 and (
            is_cp_async_copier(ctx, call.args[0])
            or (_origin_out_of_sight(ctx, call.args[0]) and _committed_right_after(ctx, call))):
        return call.args[2]
    is_async = argument(call, "is_async")
    if isinstance(is_async, ast.Constant) and is_async.value is True and len(call.args) >= 2 \
            and callee_name(call.func) == "copy":
        return call.args[1]
    return None


def _origin_out_of_sight(ctx: "FileContext", atom: ast.expr) -> bool:
    """A copy atom or tiled copy the file cannot trace: a kernel parameter no launch or call in the
    file binds (a kernel-only module whose host builds the copy elsewhere)."""
    if not isinstance(atom, ast.Name):
        return False
    definitions = ctx.definitions(atom.id, atom)
    if len(definitions) != 1 or definitions[0].kind != "param" or not isinstance(definitions[0].node, ast.arg):
        return False
    kernel = ctx.kernel_of(atom, "cute")
    if kernel is None or any(launch.kernel is kernel for launch in ctx.launches_of("cute")):
        return False
    return not calls_graph.arguments_for(ctx, definitions[0].node)


def _committed_right_after(ctx: "FileContext", call: ast.Call) -> bool:
    """The statements after the copy (other copies aside) commit a cp.async group: only cp.async
    copies join a group, so the copy is one (the seed's kernel-only file, where the commit and
    wait calls are what shows the copy is asynchronous)."""
    statement = ctx.parent(call)
    block = ctx.parent(statement) if isinstance(statement, ast.Expr) else None
    body = next((b for b in (getattr(block, f, None) for f in ("body", "orelse")) if isinstance(b, list)
                 and statement in b), None) if block is not None else None
    if body is None:
        return False
    for following in body[body.index(statement) + 1:]:
        value = following.value if isinstance(following, ast.Expr) else None
        if not isinstance(value, ast.Call):
            return False
        name = ctx.call_name(value)
        if name in CP_ASYNC_COMMIT:
            return True
        if name != COPY:
            return False
    return False


def _is_view(ctx: "FileContext", value: ast.expr) -> bool:
    """``value`` is a view of the memory of the names it mentions: a name, a slice with ``None``
    modes, or a view-making call."""
    if isinstance(value, ast.Name):
        return True
    if isinstance(value, ast.Subscript):
        index = value.slice
        coords = index.elts if isinstance(index, ast.Tuple) else [index]
        return any(isinstance(c, ast.Constant) and c.value is None or isinstance(c, ast.Slice) for c in coords) \
            or isinstance(index, ast.Constant) and index.value is Ellipsis or any(
                isinstance(c, ast.Constant) and c.value is Ellipsis for c in coords)
    if isinstance(value, ast.Call):
        return callee_name(value.func) in VIEW_MAKERS
    return False


@dataclass
class CpAsyncTensors:
    """In one function: ``own`` names hold views of the copying thread's own cp.async
    destinations; ``shared`` names hold other views of the same shared-memory tensors."""

    own: set[str] = field(default_factory=set)
    shared: set[str] = field(default_factory=set)


def cp_async_tensors(ctx: "FileContext", function: ast.AST) -> CpAsyncTensors:
    """The own and shared views of the tensors that cp.async copies in ``function`` write."""
    found = CpAsyncTensors()
    own_slices: set[str] = set()  # the thread slices (thr = g2s.get_slice(tidx)) that made own views
    for call in subtree(function):
        if not isinstance(call, ast.Call):
            continue
        for destination in [cp_async_destination(ctx, call), *helper_destinations(ctx, call)]:
            _note_destination(ctx, destination, found, own_slices)
    found.shared -= found.own
    if not found.shared and not found.own:
        return found
    return _spread_views(ctx, function, found, own_slices)


def helper_destinations(ctx: "FileContext", call: ast.Call) -> list[ast.expr]:
    """What ``call`` passes to a helper of this file for the parameters the helper's own
    cp.async copies write (``self.load_tile(g2s, tG, tS)`` -> ``tS``): real kernels issue their
    copies in ``@cute.jit`` helper methods and wait in the caller."""
    found = []
    for helper in ctx.local_functions_called(call):
        params = [a.arg for a in [*helper.args.posonlyargs, *helper.args.args]]
        if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
            params = params[1:]
        for inner in subtree(helper):
            destination = cp_async_destination(ctx, inner) if isinstance(inner, ast.Call) else None
            while isinstance(destination, ast.Subscript):
                destination = destination.value
            if not isinstance(destination, ast.Name) or destination.id not in params:
                continue
            passed = next((k.value for k in call.keywords if k.arg == destination.id), None)
            index = params.index(destination.id)
            if passed is None and index < len(call.args) and not any(
                    isinstance(a, ast.Starred) for a in call.args[:index + 1]):
                passed = call.args[index]
            if passed is not None:
                found.append(passed)
    return found


def _note_destination(ctx: "FileContext", destination: ast.expr | None, found: "CpAsyncTensors",
                      own_slices: set[str]) -> None:
    """Record a cp.async destination: its name as an own view, the tensor it views as shared."""
    if destination is None:
        return
    while isinstance(destination, ast.Subscript):
        destination = destination.value
    if isinstance(destination, ast.Name):
        found.own.add(destination.id)
        value = single_binding(ctx, destination)
    elif isinstance(destination, ast.Call):
        value = destination  # cute.copy(g2s, tG, thr.partition_D(s))
    else:
        return
    # tS = thr.partition_D(s): s is the shared tensor other views read
    if isinstance(value, ast.Call) and callee_name(value.func) in VIEW_MAKERS:
        if callee_name(value.func) in _THREAD_PARTITIONS and isinstance(value.func, ast.Attribute):
            own_slices.add(ast.dump(value.func.value))
        for argument_ in value.args:
            root = base_name(argument_)
            if root is not None and not isinstance(argument_, ast.Call):
                found.shared.add(root.id)


def _spread_views(ctx: "FileContext", function: ast.AST, found: "CpAsyncTensors",
                  own_slices: set[str]) -> "CpAsyncTensors":
    """Names assigned views of the own and shared tensors join them (to a fixed point)."""
    assignments = [
        n for n in subtree(function)
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
        and _is_view(ctx, n.value)
    ]
    changed = True
    while changed:
        changed = False
        for assignment in assignments:
            target = assignment.targets[0].id
            if target in found.own or target in found.shared:
                continue
            mentioned = {n.id for n in ast.walk(assignment.value) if isinstance(n, ast.Name)}
            value = assignment.value
            if (isinstance(value, ast.Call) and callee_name(value.func) in _THREAD_PARTITIONS
                    and isinstance(value.func, ast.Attribute) and ast.dump(value.func.value) in own_slices):
                found.own.add(target)  # the copying slice partitions the tile again: its own elements
                changed = True
            elif mentioned & found.shared:
                found.shared.add(target)
                changed = True
            elif mentioned & found.own:
                found.own.add(target)
                changed = True
    return found


def reads_other_threads_copies(ctx: "FileContext", name: ast.Name, tensors: CpAsyncTensors) -> bool:
    """``name`` (a load of a shared view) reads shared memory at this point: not a write into
    it, not a new view of it, not a question about its shape."""
    if not isinstance(name.ctx, ast.Load) or name.id not in tensors.shared:
        return False
    node: ast.AST = name
    parent = ctx.parent(node)
    while isinstance(parent, ast.Subscript) and parent.value is node:
        if isinstance(parent.ctx, ast.Store):
            return False
        node, parent = parent, ctx.parent(parent)
    if isinstance(parent, ast.Attribute) and parent.value is node:
        if parent.attr in _METADATA_ATTRIBUTES:
            return False
        call = ctx.parent(parent)
        if parent.attr in _WRITE_METHODS and isinstance(call, ast.Call) and call.func is parent:
            return False
    if isinstance(parent, ast.Call) and node in parent.args:
        last = callee_name(parent.func)
        if last in _METADATA_CALLS:
            return False
        if last in VIEW_MAKERS and isinstance(ctx.parent(parent), (ast.Assign, ast.AnnAssign)):
            return False
        # the destination of a copy is written, not read
        position = 2 if ctx.call_name(parent) == COPY else 1 if last in ("copy", "autovec_copy") else None
        if position is not None and parent.args.index(node) == position:
            return False
    if isinstance(parent, ast.Assign) and parent.value is node and _is_view(ctx, node):
        return False  # an alias or a slice: a view, read where it is used
    return True
