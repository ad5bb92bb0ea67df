"""Predicated copies in CuTe DSL kernels: which copies take a ``pred=`` tensor, which thread
partitions that predicate was built from, which partitions the copied data are, and what the
destination of a predicated copy meets afterwards (a fill, a max/min reduction).

The idiom (CUTLASS's examples, quack, flashinfer, flash-attention's CuTe kernels)::

    cX = cute.local_tile(cute.make_identity_tensor(mX.shape), tiler_mn, (bidx, 0))
    thr_copy = tiled_copy.get_slice(tidx)
    tXgX = thr_copy.partition_S(gX)                    # the data
    tXcX = thr_copy.partition_S(cX)                    # its coordinates, split the same way
    tXpX = predicate_k(tXcX, limit=N)                  # or a Boolean fragment filled in a loop
    tXrX = cute.make_fragment_like(tXgX)
    tXrX.fill(-Float32.inf)                            # what masked elements hold
    cute.copy(tiled_copy, tXgX, tXrX, pred=tXpX)

Copies are recognised as ``cute.copy(atom, src, dst, pred=p)``, as a library copy helper called
with ``pred=`` (quack's ``copy_utils.copy(src, dst, pred=p)``, ``cvt_copy(tiled, src, dst,
pred=p)``: the last two positional arguments are source and destination), and through
``copy = functools.partial(<copy>, pred=p)`` followed by ``copy(src, dst)``.

Values are followed through the names of one function (the bindings that reach each use),
kernel parameters to what the file's launches pass, and ``self.<attr>`` configuration. Two
expressions compare as ``"same"`` (the same binding, or the same call of the same arguments),
``"different"`` (the same factory called with integer arguments that differ somewhere) or
``"unknown"``: rules report only the second.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core.calls import argument, callee_name
from kernelint.model.dsl.cute import COPY
from kernelint.model.core.reaching import reaching_definitions, walk_value
from kernelint.model.core.values import base_name
from kernelint.model.core.walk import children, subtree
from kernelint.model.core.memo import kept_on

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_DEPTH = 8

#: ``ThrCopy`` / ``ThrMma`` methods that split a tensor among threads.
PARTITION_METHODS = frozenset({"partition_S", "partition_D", "partition_A", "partition_B", "partition_C"})
#: The method that takes one thread's slice of a tiled copy or MMA.
SLICE_METHODS = frozenset({"get_slice"})
MAKE_IDENTITY_TENSOR = "cutlass.cute.make_identity_tensor"
LOCAL_TILE = "cutlass.cute.local_tile"
#: Tiled-copy factories, and the position of the copy atom among their arguments (the atom sets
#: the instruction, not which thread owns which element, so it is left out of comparisons).
TILED_COPY_FACTORIES = {
    "cutlass.cute.make_tiled_copy_tv": 0,
    "cutlass.cute.make_tiled_copy": 0,
    "cutlass.cute.make_tiled_copy_A": 0,
    "cutlass.cute.make_tiled_copy_B": 0,
    "cutlass.cute.make_tiled_copy_C": 0,
    "cutlass.cute.make_tiled_copy_S": 0,
    "cutlass.cute.make_tiled_copy_D": 0,
    "cutlass.cute.make_tiled_copy_C_atom": 0,
    "cutlass.cute.make_tiled_mma": None,
}
#: Fresh register tensors: their elements hold nothing defined until written.
FRAGMENT_FACTORIES = frozenset({
    "cutlass.cute.make_rmem_tensor", "cutlass.cute.make_fragment", "cutlass.cute.make_fragment_like",
    "cutlass.cute.make_rmem_tensor_like",
})
#: Copies without a predicate that move a whole tensor (source, destination positions).
PLAIN_COPIES = {"cutlass.cute.autovec_copy": (0, 1), "cutlass.cute.basic_copy": (0, 1), COPY: (1, 2)}
#: Reductions: ``cute.ReductionOp`` members, and the calls that take a max or a min.
REDUCTION_OP = "cutlass.cute.ReductionOp."
EXTREMUM_NAMES = frozenset({"max", "min", "fmax", "fmin", "amax", "amin", "argmax", "argmin", "softmax"})
#: Calls after which a value no longer holds what was loaded in masked lanes (a select puts the
#: identity there), or cannot be changed by a zero there (the largest magnitude).
MASKING_CALLS = frozenset({"where", "select", "select_", "abs", "absf", "fabs"})


# --- predicated copies --------------------------------------------------------------------------


@dataclass(frozen=True)
class PredicatedCopy:
    call: ast.Call
    src: ast.expr
    dst: ast.expr
    pred: ast.expr




def _is_copy_helper(ctx: "FileContext", func: ast.expr) -> bool:
    """``cute.copy`` or a copy helper of a library (``copy_utils.copy``, ``cvt_copy``)."""
    if ctx.qualname(func) == COPY:
        return True
    last = callee_name(func)
    return last is not None and (last == "copy" or last.endswith("_copy"))


def _partial_pred(ctx: "FileContext", func: ast.expr) -> tuple[ast.expr, ast.expr, list[ast.expr]] | None:
    """``(wrapped function, pred, bound positional arguments)`` when ``func`` names
    ``functools.partial(<copy>, ..., pred=p)``."""
    if not isinstance(func, ast.Name):
        return None
    definitions = ctx.definitions(func.id, func)
    if len(definitions) != 1 or definitions[0].value is None:
        return None
    value = definitions[0].value
    if not (isinstance(value, ast.Call) and ctx.call_name(value) == "functools.partial" and value.args):
        return None
    pred = argument(value, "pred")
    if pred is None or not _is_copy_helper(ctx, value.args[0]):
        return None
    return value.args[0], pred, list(value.args[1:])


def _is_none(expr: ast.expr | None) -> bool:
    return expr is None or (isinstance(expr, ast.Constant) and expr.value is None)


def predicated_copies(ctx: "FileContext") -> list[PredicatedCopy]:
    """Every copy in the file that takes a predicate tensor (``pred=None`` / ``pred=True`` are
    not predicates)."""
    cached = kept_on(ctx, "predicated_copies").get(None)
    if cached is not None:
        return cached
    found: list[PredicatedCopy] = []
    for call in ctx.nodes(ast.Call):
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        if len(positional) != len(call.args):
            continue
        pred = argument(call, "pred")
        wrapped = None
        if pred is None:
            partial = _partial_pred(ctx, call.func)
            if partial is None:
                continue
            wrapped, pred, bound = partial
            positional = [*bound, *positional]
        elif not _is_copy_helper(ctx, call.func):
            continue
        if _is_none(pred) or (isinstance(pred, ast.Constant) and isinstance(pred.value, bool)):
            continue
        is_cute_copy = ctx.qualname(wrapped if wrapped is not None else call.func) == COPY
        if is_cute_copy and len(positional) >= 3:
            src, dst = positional[1], positional[2]
        elif not is_cute_copy and len(positional) >= 2:
            src, dst = positional[-2], positional[-1]
        else:
            continue
        found.append(PredicatedCopy(call, src, dst, pred))
    kept_on(ctx, "predicated_copies")[None] = found
    return found


# --- following tensors --------------------------------------------------------------------------


def single_value(ctx: "FileContext", name: ast.Name) -> ast.expr | None:
    """The expression ``name`` holds at this use when one plain assignment reaches it."""
    reaching = reaching_definitions(ctx, name)
    if len(reaching) != 1 or reaching[0].kind != "assign":
        return None
    return reaching[0].value


def _strip(ctx: "FileContext", expr: ast.expr, depth: int = _DEPTH) -> ast.expr:
    """``expr`` with subscripts taken off and names replaced by the one value reaching them."""
    while depth > 0:
        depth -= 1
        if isinstance(expr, ast.Subscript):
            expr = expr.value
        elif isinstance(expr, ast.Name):
            value = single_value(ctx, expr)
            if value is None:
                return expr
            expr = value
        else:
            return expr
    return expr


@dataclass(frozen=True)
class Partition:
    """``slicer.partition_X(tensor)``: one thread's part of ``tensor``."""

    call: ast.Call
    slicer: ast.expr
    tensor: ast.expr


def _as_partition(node: ast.AST) -> Partition | None:
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in PARTITION_METHODS and len(node.args) == 1 and not node.keywords):
        return Partition(node, node.func.value, node.args[0])
    return None


def partition_of(ctx: "FileContext", expr: ast.expr) -> Partition | None:
    """The partition a copied tensor is (through subscripts and names), or None."""
    return _as_partition(_strip(ctx, expr))


def partitions_feeding(ctx: "FileContext", pred: ast.expr) -> list[Partition]:
    """The thread partitions a predicate tensor is computed from: through names (every binding
    that reaches a use), the element stores that fill a Boolean fragment (``p[i] = ...``), and
    the arguments of the calls that build it (``predicate_k(tXcX, limit)``); a partition is not
    entered."""
    found: list[Partition] = []
    seen: set[int] = set()
    stack: list[tuple[ast.AST, int]] = [(pred, 0)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen or depth > _DEPTH:
            continue
        seen.add(id(node))
        partition = _as_partition(node)
        if partition is not None:
            found.append(partition)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for definition in reaching_definitions(ctx, node):
                if definition.value is not None:
                    stack.append((definition.value, depth + 1))
            for stored in element_stores(ctx, node):
                stack.append((stored, depth + 1))
        elif not isinstance(node, ast.Lambda):
            stack.extend((child, depth) for child in children(node))
    return found


def element_stores(ctx: "FileContext", name: ast.Name) -> list[ast.expr]:
    """Values stored into elements of the tensor ``name`` holds, in its function:
    ``name[i] = v`` / ``name[i, j] = v``."""
    scope = ctx.scope_of(name)
    index = ctx.__dict__.setdefault("_cute_element_stores", {})
    table = index.get(id(scope))
    if table is None:
        table = {}
        for node in subtree(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    base = base_name(target) if isinstance(target, ast.Subscript) else None
                    if base is not None and ctx.scope_of(node) is scope:
                        table.setdefault(base.id, []).append(node.value)
        index[id(scope)] = table
    return table.get(name.id, [])


# --- comparing values ---------------------------------------------------------------------------

_LEAVES = (int, float, bool, str, type(None))


def static_form(ctx: "FileContext", expr: ast.AST | None, depth: int = _DEPTH):
    """A comparable form of ``expr``: numbers and strings as themselves, tuples as
    ``("tuple", items)``, calls as ``("call", name, args, keywords)``, and every value that
    cannot be read as a token naming where it comes from (one binding, one parameter)."""
    if expr is None:
        return None
    if depth <= 0:
        return ("node", id(expr))
    if isinstance(expr, ast.Constant) and isinstance(expr.value, _LEAVES):
        return expr.value
    if isinstance(expr, (ast.Tuple, ast.List)):
        return ("tuple", tuple(static_form(ctx, e, depth - 1) for e in expr.elts))
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = static_form(ctx, expr.operand, depth - 1)
        return -inner if isinstance(inner, (int, float)) and not isinstance(inner, bool) else ("neg", inner)
    if isinstance(expr, ast.BinOp):
        folded = ctx.resolve_int(expr)
        if folded is not None:
            return folded
        return ("binop", type(expr.op).__name__, static_form(ctx, expr.left, depth - 1),
                static_form(ctx, expr.right, depth - 1))
    if isinstance(expr, ast.Name):
        qualname = ctx.qualname(expr)
        reaching = reaching_definitions(ctx, expr)
        if not reaching:
            return ("name", qualname or expr.id)
        if len(reaching) == 1:
            definition = reaching[0]
            if definition.kind == "assign" and definition.value is not None:
                return static_form(ctx, definition.value, depth - 1)
            if definition.kind == "param":
                bound = _launch_argument(ctx, expr)
                if bound is not None:
                    return static_form(ctx, bound, depth - 1)
            return ("def", id(definition.node), expr.id)
        return ("defs", frozenset(id(d.node) for d in reaching), expr.id)
    if isinstance(expr, ast.Attribute):
        qualname = ctx.qualname(expr)
        if qualname is not None and qualname.startswith("cutlass."):
            return ("name", qualname)
        if isinstance(expr.value, ast.Name) and expr.value.id == "self":
            from kernelint.model.cute.static import self_attribute_values

            values = self_attribute_values(ctx, expr)
            if values is not None and len(values) == 1:
                return static_form(ctx, values[0], depth - 1)
            return ("self", expr.attr)
        return ("attr", static_form(ctx, expr.value, depth - 1), expr.attr)
    if isinstance(expr, ast.Subscript):
        return ("sub", static_form(ctx, expr.value, depth - 1), static_form(ctx, expr.slice, depth - 1))
    if isinstance(expr, ast.Call):
        name = ctx.call_name(expr)
        if name is None:
            if not isinstance(expr.func, ast.Attribute):
                return ("node", id(expr))
            name = ("method", static_form(ctx, expr.func.value, depth - 1), expr.func.attr)
        return ("call", name, tuple(static_form(ctx, a, depth - 1) for a in expr.args),
                tuple(sorted((k.arg or "**", static_form(ctx, k.value, depth - 1)) for k in expr.keywords)))
    return ("node", id(expr))


def _launch_argument(ctx: "FileContext", parameter_use: ast.Name) -> ast.expr | None:
    """What every launch of the enclosing CuTe kernel in this file passes for a parameter, when
    they all pass the same expression."""
    kernel = ctx.kernel_of(parameter_use, "cute")
    if kernel is None:
        return None
    bound = [launch.bound_arguments().get(parameter_use.id)
             for launch in ctx.launches_of("cute") if launch.kernel is kernel]
    if len(bound) != 1 or bound[0] is None:
        return None
    return bound[0]


def compare_forms(a, b) -> str:
    """``"same"``, ``"different"`` (provably: literals that differ somewhere the two agree on
    the structure) or ``"unknown"``."""
    if isinstance(a, _LEAVES) and isinstance(b, _LEAVES):
        return "same" if a == b else "different"
    if isinstance(a, _LEAVES) or isinstance(b, _LEAVES):
        return "unknown"
    if a[0] != b[0]:
        return "unknown"
    kind = a[0]
    if kind == "tuple":
        if len(a[1]) != len(b[1]):
            return "unknown"  # another rank: a projection (a coordinate tile without the head mode)
        return _combine([compare_forms(x, y) for x, y in zip(a[1], b[1])])
    if kind == "call":
        if a[1] != b[1] or len(a[2]) != len(b[2]):
            return "unknown"
        keys_a, keys_b = dict(a[3]), dict(b[3])
        if set(keys_a) != set(keys_b):
            # a keyword given on one side only: compare what both give, never conclude "same"
            shared = [compare_forms(keys_a[k], keys_b[k]) for k in set(keys_a) & set(keys_b)]
            verdicts = [compare_forms(x, y) for x, y in zip(a[2], b[2])] + shared
            return "different" if "different" in verdicts else "unknown"
        return _combine([compare_forms(x, y) for x, y in zip(a[2], b[2])]
                        + [compare_forms(keys_a[k], keys_b[k]) for k in keys_a])
    return "same" if a == b else "unknown"


def _combine(verdicts: list[str]) -> str:
    if "different" in verdicts:
        return "different"
    return "same" if all(v == "same" for v in verdicts) else "unknown"


# --- thread slices --------------------------------------------------------------------------------


def thread_slice(ctx: "FileContext", slicer: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """``(tiled copy or MMA, thread index)`` of a slice ``tiled.get_slice(tidx)``, through names."""
    value = _strip(ctx, slicer)
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in SLICE_METHODS and len(value.args) == 1):
        return value.func.value, value.args[0]
    return None


def _tiled_factory(ctx: "FileContext", tiled: ast.expr, depth: int = _DEPTH) -> ast.Call | None:
    """The ``make_tiled_copy*`` / ``make_tiled_mma`` call a tiled copy or MMA was made by:
    through names, and kernel parameters to what the file's launches pass."""
    while depth > 0:
        depth -= 1
        if isinstance(tiled, ast.Call):
            return tiled if ctx.call_name(tiled) in TILED_COPY_FACTORIES else None
        if not isinstance(tiled, ast.Name):
            return None
        reaching = reaching_definitions(ctx, tiled)
        if len(reaching) != 1:
            return None
        definition = reaching[0]
        if definition.kind == "assign" and definition.value is not None:
            tiled = definition.value
        elif definition.kind == "param":
            bound = _launch_argument(ctx, tiled)
            if bound is None:
                return None
            tiled = bound
        else:
            return None
    return None


def compare_tiled(ctx: "FileContext", a: ast.expr, b: ast.expr) -> str:
    """Whether two tiled copies (or MMAs) split tensors among threads the same way: the same
    binding, or the same factory with the same layout arguments (the copy atom aside)."""
    if compare_forms(static_form(ctx, a), static_form(ctx, b)) == "same":
        return "same"
    fa, fb = _tiled_factory(ctx, a), _tiled_factory(ctx, b)
    if fa is None or fb is None:
        return "unknown"
    if fa is fb:
        return "same"
    name = ctx.call_name(fa)
    if name != ctx.call_name(fb) or len(fa.args) != len(fb.args):
        return "unknown"
    atom = TILED_COPY_FACTORIES[name]
    args_a = [x for i, x in enumerate(fa.args) if i != atom]
    args_b = [x for i, x in enumerate(fb.args) if i != atom]
    keys_a = {k.arg: k.value for k in fa.keywords}
    keys_b = {k.arg: k.value for k in fb.keywords}
    if set(keys_a) != set(keys_b):
        return "unknown"
    verdicts = [compare_forms(static_form(ctx, x), static_form(ctx, y)) for x, y in zip(args_a, args_b)]
    verdicts += [compare_forms(static_form(ctx, keys_a[k]), static_form(ctx, keys_b[k])) for k in keys_a]
    return _combine(verdicts)


@dataclass(frozen=True)
class Mismatch:
    """Why a predicate's partition does not match the data's: ``kind`` is ``"slice"`` (another
    tiled copy's thread layout) or ``"tile"`` (another tiler or tile coordinate)."""

    kind: str
    data: Partition
    predicate: Partition


def compare_partitions(ctx: "FileContext", data: Partition, predicate: Partition) -> str | Mismatch:
    """``"same"``, ``"ignored"`` (a partition of thread 0's slice, ``get_slice(0)``: the
    compile-time offsets flash-attention compares against a shifted limit), ``"unknown"``, or
    the Mismatch."""
    sliced = thread_slice(ctx, predicate.slicer)
    if sliced is not None and ctx.resolve_int(sliced[1]) is not None:
        return "ignored"
    verdict = compare_forms(static_form(ctx, data.slicer), static_form(ctx, predicate.slicer))
    if verdict != "same":
        data_slice = thread_slice(ctx, data.slicer)
        if data_slice is None or sliced is None:
            return "unknown"
        index = compare_forms(static_form(ctx, data_slice[1]), static_form(ctx, sliced[1]))
        tiled = compare_tiled(ctx, data_slice[0], sliced[0])
        if tiled == "different" and index != "different":
            return Mismatch("slice", data, predicate)
        if tiled != "same" or index != "same":
            return "unknown"
    return _compare_tiles(ctx, data, predicate)


def _compare_tiles(ctx: "FileContext", data: Partition, predicate: Partition) -> str | Mismatch:
    """Both partitioned tensors are ``cute.local_tile(t, tiler, coord)``: do tiler and
    coordinate agree?"""
    tile_a, tile_b = _strip(ctx, data.tensor), _strip(ctx, predicate.tensor)
    if not (ctx.call_name(tile_a) == LOCAL_TILE and ctx.call_name(tile_b) == LOCAL_TILE):
        return "same"
    verdicts = []
    for name, position in (("tiler", 1), ("coord", 2)):
        x, y = argument(tile_a, name, position), argument(tile_b, name, position)
        if x is None or y is None:
            return "same"
        verdicts.append(compare_forms(static_form(ctx, x), static_form(ctx, y)))
    return Mismatch("tile", data, predicate) if "different" in verdicts else "same"


# --- what a copy's destination meets -------------------------------------------------------------


def is_extremum_reduction(ctx: "FileContext", call: ast.Call) -> bool:
    """A max or min reduction: ``x.reduce(cute.ReductionOp.MAX, ...)``, a call given
    ``ReductionOp.MAX``/``MIN`` (``row_reduce(x, cute.ReductionOp.MAX, ...)``), a reduction given
    ``fmax`` as its operator (``warp_reduction(x, cute.arch.fmax)``), a running maximum
    (``m = cute.arch.fmax(m, x)``), or a helper whose name says it reduces to a max or min
    (``warp_reduction_max``, ``block_reduce_max``, ``online_softmax_reduce``). A plain
    ``fmin(x, limit)`` is a clamp, not a reduction."""
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        qualname = ctx.qualname(arg) or ""
        if qualname.startswith(REDUCTION_OP):
            return qualname[len(REDUCTION_OP):] in ("MAX", "MIN")
        if _names_extremum(ctx, arg):
            return True
    tokens = _name_tokens(ctx, call)
    if tokens & _WHOLE_REDUCTION_NAMES or (tokens & EXTREMUM_NAMES and tokens & _REDUCING_WORDS):
        return True
    if _names_extremum(ctx, call.func) and ctx.loops_of(call):
        # `m = fmax(m, x)` in a loop is a running maximum; `v = fmax(v, 0.0)` is a ReLU
        holder = ctx.parent(call)
        if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
            target = holder.targets[0].id
            others = [a for a in call.args if not (isinstance(a, ast.Name) and a.id == target)]
            return len(others) < len(call.args) and bool(others) and all(
                constant_number(ctx, a) is None for a in others)
    return False


def is_reduction(ctx: "FileContext", call: ast.Call) -> bool:
    """Any reduction to fewer values: ``x.reduce(op, ...)``, a call given a ``ReductionOp``, or
    a helper named for reducing or summing (``row_reduce``, ``warp_reduction_sum``)."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "reduce":
        return True
    if any((ctx.qualname(a) or "").startswith(REDUCTION_OP) for a in [*call.args, *(k.value for k in call.keywords)]):
        return True
    return bool(_name_tokens(ctx, call) & (_REDUCING_WORDS | {"sum"})) or is_extremum_reduction(ctx, call)


def _name_tokens(ctx: "FileContext", call: ast.Call) -> set[str]:
    name = ctx.call_name(call) or callee_name(call.func) or ""
    return set(name.rsplit(".", 1)[-1].lower().split("_"))


_WHOLE_REDUCTION_NAMES = frozenset({"softmax", "amax", "amin", "argmax", "argmin"})
_REDUCING_WORDS = frozenset({"reduce", "reduction", "allreduce", "warp", "block", "row", "cluster", "redux"})


def _names_extremum(ctx: "FileContext", arg: ast.expr) -> bool:
    """``arg`` is a function that takes a max/min: ``cute.arch.fmax``, or a lambda calling one."""
    if isinstance(arg, ast.Lambda):
        return any(isinstance(n, ast.Call) and _names_extremum(ctx, n.func) for n in subtree(arg.body))
    if isinstance(arg, (ast.Name, ast.Attribute)):
        last = (ctx.qualname(arg) or callee_name(arg) or "").rsplit(".", 1)[-1]
        return last in ("fmax", "fmin", "max", "min")
    return False


def reduced_operands(ctx: "FileContext", call: ast.Call) -> list[ast.expr]:
    """The values a reduction reduces: the receiver of ``x.reduce(...)``, else its arguments
    that are neither the operator nor an initial value literal."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "reduce":
        return [call.func.value]
    return [a for a in call.args if not (ctx.qualname(a) or "").startswith(REDUCTION_OP)
            and not isinstance(a, (ast.Lambda, ast.Constant)) and not _names_extremum(ctx, a)]


def tensors_feeding(ctx: "FileContext", expr: ast.expr) -> dict[int, ast.Name]:
    """The tensors (by the use of their name) whose elements ``expr``'s value is computed
    from: ``t.load()`` reads ``t``; a tensor that a plain copy filled (``autovec_copy(s, t)``)
    was read from ``s`` too. Stops at selects (``cute.where``) and absolute values."""
    found: dict[int, ast.Name] = {}
    seen: set[int] = set()

    def descend(node: ast.AST) -> bool:
        if isinstance(node, ast.Call):
            last = (ctx.call_name(node) or callee_name(node.func) or "").rsplit(".", 1)[-1]
            if last in MASKING_CALLS or (node is not expr and is_reduction(ctx, node)):
                return False  # a select, an absolute value, or another reduction's result
            if isinstance(node.func, ast.Attribute) and node.func.attr == "load":
                tensor = base_name(node.func.value)
                if tensor is not None:
                    for source in _tensor_sources(ctx, tensor, seen):
                        found.setdefault(id(source), source)
                return False
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            for source in _tensor_sources(ctx, node.value, seen):  # an element read, `frag[i]`
                found.setdefault(id(source), source)
        return True

    walk_value(ctx, expr, descend, 2 * _DEPTH, seen)
    return found


def _tensor_sources(ctx: "FileContext", tensor: ast.Name, seen: set[int]) -> list[ast.Name]:
    """``tensor`` and, transitively, the tensors plain copies in its function copied into it."""
    found = [tensor]
    frontier = [tensor]
    while frontier:
        current = frontier.pop()
        for copy in plain_copies_into(ctx, current):
            if id(copy) in seen:
                continue
            seen.add(id(copy))
            source = base_name(copy.args[PLAIN_COPIES[ctx.call_name(copy)][0]])
            if source is not None:
                found.append(source)
                frontier.append(source)
    return found


def plain_copies_into(ctx: "FileContext", tensor: ast.Name) -> list[ast.Call]:
    """Unpredicated copies in ``tensor``'s function whose destination is ``tensor`` (or a view
    of it)."""
    scope = ctx.scope_of(tensor)
    found = []
    for call in ctx.nodes(ast.Call):
        positions = PLAIN_COPIES.get(ctx.call_name(call) or "")
        if positions is None or argument(call, "pred") is not None or len(call.args) <= positions[1]:
            continue
        dst = base_name(call.args[positions[1]])
        if dst is not None and dst.id == tensor.id and ctx.scope_of(call) is scope:
            found.append(call)
    return found


@dataclass(frozen=True)
class Fill:
    """A write that sets elements of a tensor besides the predicated copy: ``value`` is what
    ``t.fill(v)`` / ``fill_oob(t, p, v)`` writes, None when the write is of another kind (an
    element store, another copy into it, a helper given the tensor)."""

    node: ast.AST
    value: ast.expr | None


def fills_of(ctx: "FileContext", tensor: ast.Name, besides: ast.Call) -> list[Fill]:
    """The writes to ``tensor`` in its function other than the copy ``besides``."""
    scope = ctx.scope_of(tensor)
    found: list[Fill] = []
    for call in ctx.nodes(ast.Call):
        if call is besides or ctx.scope_of(call) is not scope:
            continue
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "fill" and base_name(func.value) is not None \
                and base_name(func.value).id == tensor.id:
            found.append(Fill(call, call.args[0] if call.args else argument(call, "value")))
            continue
        arguments = [a for a in [*call.args, *(k.value for k in call.keywords)]]
        given = [a for a in arguments if base_name(a) is not None and base_name(a).id == tensor.id]
        if not given:
            continue
        last = (ctx.call_name(call) or callee_name(func) or "").rsplit(".", 1)[-1]
        if "fill" in last.lower():
            value = argument(call, "fill_value") or argument(call, "value")
            if value is None and call.args and call.args[-1] not in given:
                value = call.args[-1]
            found.append(Fill(call, value))
        elif ctx.call_name(call) in PLAIN_COPIES:
            dst = call.args[PLAIN_COPIES[ctx.call_name(call)][1]] if len(call.args) > PLAIN_COPIES[ctx.call_name(call)][1] else None
            if dst is not None and base_name(dst) is not None and base_name(dst).id == tensor.id:
                found.append(Fill(call, None))
        elif _is_copy_helper(ctx, func) or _partial_pred(ctx, func) is not None:
            if base_name(call.args[-1]) is not None and base_name(call.args[-1]).id == tensor.id:
                found.append(Fill(call, None))
        elif ctx.local_functions_called(call):
            found.append(Fill(call, None))  # a helper of this file given the tensor may write it
    for stored in element_stores(ctx, tensor):
        found.append(Fill(stored, None))
    return found


def constant_number(ctx: "FileContext", expr: ast.expr | None, depth: int = 4) -> float | None:
    """The finite number ``expr`` spells (``0.0``, ``-1``, ``cutlass.Float32(0.0)``, a name bound
    once to one), or None."""
    if expr is None or depth <= 0:
        return None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
        return float(expr.value)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        inner = constant_number(ctx, expr.operand, depth - 1)
        return None if inner is None else (-inner if isinstance(expr.op, ast.USub) else inner)
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords:
        name = ctx.call_name(expr) or ""
        if name.startswith("cutlass.") or name in ("float", "int"):
            if isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str):
                return None  # float("-inf")
            return constant_number(ctx, expr.args[0], depth - 1)
        return None
    if isinstance(expr, ast.Name):
        definitions = ctx.definitions(expr.id, expr)
        if len(definitions) == 1 and definitions[0].value is not None:
            return constant_number(ctx, definitions[0].value, depth - 1)
    return None
