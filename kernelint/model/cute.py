"""CuTe DSL facts: host tensor views handed to ``from_dlpack`` and the mbarrier protocol.

The mbarrier helpers classify calls by qualified name, so ``cute.arch.mbarrier_wait``, a
``from cutlass.cute.arch import mbarrier_wait`` and the experimental ``prims.mbarrier_wait_parity``
are one thing to the rules.
"""
from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

from kernelint.model.reaching import value_at

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

FROM_DLPACK = "cutlass.cute.runtime.from_dlpack"

_ARCH = "cutlass.cute.arch."
_PRIMS = "cutlass.experimental.primitives."

MBARRIER_INIT = frozenset({_ARCH + "mbarrier_init", _PRIMS + "mbarrier_init"})

#: Calls that show the author published a fresh barrier: the init fence, and the helpers that
#: fence and sync for pipelines (``pipeline_init_arrive`` / ``pipeline_init_wait``, the two
#: halves of the cluster barrier). Matched on the last name component too, since libraries
#: re-export them. A fence is not enough by itself (measured: init + fence with no sync faulted),
#: but real code that fences puts the sync in another function (a cluster wait in the caller, a
#: ``sync_warp`` for a one-warp barrier), so a fence is taken as the sign of a handled init.
_PUBLISHING_HELPERS = frozenset({"mbarrier_init_fence", "fence_mbarrier_init",
                                 "pipeline_init_arrive", "pipeline_init_wait"})

#: Phase-parity waits: qualified name -> (position of the barrier, position of the phase).
MBARRIER_WAITS = {
    _ARCH + "mbarrier_wait": (0, 1),
    _ARCH + "mbarrier_try_wait": (0, 1),
    _ARCH + "mbarrier_test_wait": (0, 1),
    _ARCH + "mbarrier_conditional_try_wait": (1, 2),
    _PRIMS + "mbarrier_wait_parity": (0, 1),
    _PRIMS + "mbarrier_try_wait_parity": (0, 1),
}
_PHASE_KEYWORDS = ("phase", "parity")

#: Tensor methods and attributes that keep the data pointer of the tensor they are called on.
_POINTER_PRESERVING = frozenset({
    "view", "view_as", "t", "transpose", "permute", "unsqueeze", "squeeze", "expand",
    "expand_as", "detach", "requires_grad_", "T", "mT", "data",
})


#: Block-wide and cluster-wide barriers: after one, every thread of the CTA (cluster) sees the
#: shared-memory writes made before it, a barrier's initialisation included.
CTA_OR_CLUSTER_SYNCS = frozenset({
    _ARCH + "sync_threads", _ARCH + "barrier", _ARCH + "cluster_wait", _ARCH + "cluster_sync",
    _PRIMS + "barrier_cta_sync", _PRIMS + "barrier", _PRIMS + "cluster_wait",
    _PRIMS + "barrier_cluster_wait",
})


def is_cta_or_cluster_sync(ctx: FileContext, call: ast.Call) -> bool:
    return ctx.call_name(call) in CTA_OR_CLUSTER_SYNCS


def is_mbarrier_init(ctx: FileContext, call: ast.Call) -> bool:
    return ctx.call_name(call) in MBARRIER_INIT


def publishes_mbarrier_init(ctx: FileContext, call: ast.Call) -> bool:
    """A call that publishes a freshly initialised barrier to the other threads: a CTA or
    cluster barrier, the init fence or a pipeline init helper, or the creation of a
    ``cutlass.pipeline`` object (which fences and syncs unless ``defer_sync=True``)."""
    if is_cta_or_cluster_sync(ctx, call):
        return True
    name = ctx.call_name(call)
    if name is None and isinstance(call.func, ast.Attribute):
        name = call.func.attr  # self.pipeline_init_arrive(...) style wrappers
    if name is None:
        return False
    parts = name.split(".")
    if parts[-1] in _PUBLISHING_HELPERS:
        return True
    deferred = any(
        k.arg == "defer_sync" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
        for k in call.keywords
    )
    return len(parts) >= 2 and parts[-1] == "create" and parts[-2].startswith("Pipeline") and not deferred


def wait_operands(ctx: FileContext, call: ast.Call) -> tuple[ast.expr, ast.expr] | None:
    """``(barrier, phase)`` of a phase-parity mbarrier wait, or None for any other call."""
    positions = MBARRIER_WAITS.get(ctx.call_name(call) or "")
    if positions is None:
        return None
    barrier_at, phase_at = positions
    if len(call.args) <= barrier_at:
        return None
    phase = call.args[phase_at] if len(call.args) > phase_at else next(
        (k.value for k in call.keywords if k.arg in _PHASE_KEYWORDS), None
    )
    return (call.args[barrier_at], phase) if phase is not None else None


# --- host views -------------------------------------------------------------------------------


def _nonzero(ctx: FileContext, expr: ast.expr | None) -> bool:
    """True when ``expr`` is present and not shown to be zero (an unknown start may be nonzero)."""
    return expr is not None and ctx.resolve_int(expr) != 0


def _offset_slice(ctx: FileContext, index: ast.expr) -> bool:
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(p, ast.Slice) and _nonzero(ctx, p.lower) for p in parts)


def _method(node: ast.expr) -> tuple[str, ast.expr] | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr, node.func.value
    return None


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def offset_view(ctx: FileContext, expr: ast.expr, depth: int = 6) -> ast.expr | None:
    """The view expression that makes ``expr`` a torch tensor whose data pointer is offset from its
    allocation (``t[1:]``, ``t[:, 3:]``, ``t.narrow(0, 1, n)``, ``t.as_strided(..., offset)``),
    following pointer-preserving methods and the last assignment of a local name. None when the
    tensor is a fresh allocation, a copy, or cannot be told."""
    if depth <= 0:
        return None
    if isinstance(expr, ast.Subscript):
        return expr if _offset_slice(ctx, expr.slice) else offset_view(ctx, expr.value, depth - 1)
    if isinstance(expr, ast.Attribute) and expr.attr in _POINTER_PRESERVING:
        return offset_view(ctx, expr.value, depth - 1)
    if isinstance(expr, ast.Name):
        value = value_at(ctx, expr)
        return offset_view(ctx, value, depth - 1) if value is not None else None
    if not isinstance(expr, ast.Call):
        return None
    qualname = ctx.call_name(expr) or ""
    if qualname == "torch.narrow" and _nonzero(ctx, _argument(expr, 2, "start")):
        return expr
    if qualname == "torch.as_strided" and _nonzero(ctx, _argument(expr, 3, "storage_offset")):
        return expr
    method = _method(expr)
    if method is None or qualname.startswith("torch."):
        return None
    name, receiver = method
    if name == "narrow" and _nonzero(ctx, _argument(expr, 1, "start")):
        return expr
    if name == "as_strided" and _nonzero(ctx, _argument(expr, 2, "storage_offset")):
        return expr
    if name in _POINTER_PRESERVING:
        return offset_view(ctx, receiver, depth - 1)
    if name == "contiguous":  # returns the view itself when it is contiguous already
        inner = offset_view(ctx, receiver, depth - 1)
        return inner if inner is not None and _leading_offset(ctx, inner) else None
    return None


def _leading_offset(ctx: FileContext, view: ast.expr) -> bool:
    """``view`` offsets only the first dimension (``t[1:]``, ``t[1:, :]``, ``t.narrow(0, ...)``):
    a contiguous tensor stays contiguous, so ``.contiguous()`` keeps the offset pointer."""
    if isinstance(view, ast.Subscript):
        parts = view.slice.elts if isinstance(view.slice, ast.Tuple) else [view.slice]
        return all(
            isinstance(p, ast.Slice) and p.upper is None and p.step is None and p.lower is None
            for p in parts[1:]
        ) and isinstance(parts[0], ast.Slice)
    if isinstance(view, ast.Call) and ctx.call_name(view) == "torch.narrow":
        return ctx.resolve_int(_argument(view, 1, "dim")) == 0
    method = _method(view) if isinstance(view, ast.Call) else None
    return method is not None and method[0] == "narrow" and ctx.resolve_int(_argument(view, 0, "dim")) == 0


# --- loops ------------------------------------------------------------------------------------


def _body_nodes(loop: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``loop``'s body and ``else``, not descending into nested functions."""
    stack = [*getattr(loop, "body", ()), *getattr(loop, "orelse", ())]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def assigned_in(loop: ast.AST, name: str) -> list[ast.AST]:
    """Statements in ``loop`` that (re)bind ``name``: assignments, augmented assignments,
    walrus, nested ``for`` targets and ``with ... as``."""
    found = []
    for node in _body_nodes(loop):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets = [node.optional_vars]
        if any(isinstance(t, ast.Name) and t.id == name for target in targets for t in ast.walk(target)):
            found.append(node)
    return found


def _is_mod(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)


def _varies_in(loop: ast.AST, expr: ast.expr) -> bool:
    """True when some name in ``expr`` is the loop's own target or is rebound inside it."""
    target = getattr(loop, "target", None)  # a while loop has none
    own = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)} if target is not None else set()
    return any(
        isinstance(n, ast.Name) and (n.id in own or assigned_in(loop, n.id)) for n in ast.walk(expr)
    )


def ring_modulus(loop: ast.AST, index: ast.expr) -> ast.expr | None:
    """When ``index`` (a barrier or buffer index expression) wraps around a ring inside ``loop``,
    the ring size expression (``s % NUM_STAGES`` -> ``NUM_STAGES``; for a reset, the compared
    bound). The index wraps when it holds ``k % N`` with ``k`` changing in the loop, or names a
    variable that the loop binds to a ``% N`` expression (``s = k % N``, ``s = (s + 1) % N``,
    ``s %= N``) or resets to zero (``if s == N: s = 0``)."""
    for node in ast.walk(index):
        if _is_mod(node) and _varies_in(loop, node.left):
            return node.right
    for node in ast.walk(index):
        if not isinstance(node, ast.Name):
            continue
        for stmt in assigned_in(loop, node.id):
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Mod):
                return stmt.value
            value = getattr(stmt, "value", None)
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and value is not None:
                mod = next((n for n in ast.walk(value) if _is_mod(n)), None)
                if mod is not None:
                    return mod.right
        bound = _reset_bound(loop, node.id)
        if bound is not None:
            return bound
    return None


def _reset_bound(loop: ast.AST, name: str) -> ast.expr | None:
    """``N`` of an ``if name == N: name = 0`` (or ``>=``) reset of a ring index in ``loop``."""
    for node in _body_nodes(loop):
        if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
            continue
        test = node.test
        if not (isinstance(test.left, ast.Name) and test.left.id == name
                and isinstance(test.ops[0], (ast.Eq, ast.GtE))):
            continue
        if any(
            isinstance(stmt, ast.Assign) and _is_zero(stmt.value)
            and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
            for stmt in node.body
        ):
            return test.comparators[0]
    return None


def _is_zero(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Call) and len(expr.args) == 1:  # cutlass.Int32(0)
        expr = expr.args[0]
    return isinstance(expr, ast.Constant) and expr.value == 0


def trip_count_at_most(ctx: FileContext, loop: ast.AST, bound: ast.expr) -> bool:
    """True when ``loop`` is shown to run no more than ``bound`` times: ``for _ in range(N)``
    over the same ``N`` (spelled alike, or both folding to ints with the count not larger)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, ast.Call):
        return False
    args = loop.iter.args
    if len(args) != 1:
        return False
    if ast.dump(args[0]) == ast.dump(bound):
        return True
    count, limit = ctx.resolve_int(args[0]), ctx.resolve_int(bound)
    return count is not None and limit is not None and count <= limit
