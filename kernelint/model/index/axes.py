"""The per-axis indices of an access into a tensor of two or more dimensions, and which of them
can pass their dimension's extent under a launch.

A 2D tile's address is ``base + rows * stride_m + cols * stride_n``: its flat offset may stay
inside the tensor while the column index passes the last column (the lanes past ``N - 1`` then
read or write the first columns of the next row). ``axis_indices`` splits the offset polynomial
of an access (``access.py``) into one index per dimension of the host tensor passed for its
pointer: each monomial is assigned to the dimension of the stride parameter it carries, a stride
parameter's dimension read from the launch (``x.stride(0)``, ``sm, sn = x.stride()``, or a size
equal to the tensor's contiguous stride of one dimension), and what carries no stride to the
last dimension when no stride parameter names it (``cols`` in ``rows * stride + cols``).

``uncovered_axes`` then asks, per dimension, whether the access's mask keeps the index below
the extent (``Symbols.implied``) and, when it does not, how far the largest index (program ids
over the launched grid, lanes over their block) passes ``extent - 1``. Only a positive constant
excess is reported (the ``cdiv`` tail: ``BN * (cdiv(N, BN) - 1) + BN - 1 = N - 1 + BN - 1``);
anything else, or anything the split cannot place, is None (unknown stays unknown).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.core.walk import subtree
from kernelint.model.dsl import triton
from kernelint.model.index import symexpr as sx
from kernelint.model.index.access import CONST, PARAM, Access, kernel_index
from kernelint.model.index.carried import carried_index
from kernelint.model.index.launch import bind, launch_sites
from kernelint.model.index.sign import grows_positive, never_negative, positive_at
# the guards KL136 honours (an ``if``/``while`` around the access, a host ``%`` test)
from kernelint.model.index.tails import _checks_divisibility, _unguarded
from kernelint.model.index.symexpr import Poly
from kernelint.model.project import shapes

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.index.access import KernelIndex
    from kernelint.model.index.launch import Bound
    from kernelint.model.kernels import Kernel

_FOLLOW = 6


@dataclass(frozen=True)
class AxisIndex:
    """The element index of an access along dimension ``axis`` of its tensor (a kernel
    polynomial) and the dimension's extent (a host polynomial)."""

    axis: int
    index: Poly
    extent: Poly


@dataclass(frozen=True)
class AxisPast:
    """Dimension ``axis`` of an access passes its extent by up to ``excess`` elements although
    the mask bounds dimension(s) ``covered``."""

    axis: int
    index: Poly
    extent: Poly
    excess: int
    covered: tuple[int, ...]
    rank: int

    def name(self, axis: int) -> str:
        """``row``/``column`` for the last two dimensions, ``dimension k`` before them."""
        return {self.rank - 1: "column", self.rank - 2: "row"}.get(axis, f"dimension-{axis}")


def axis_indices(bound: "Bound", access: Access) -> tuple[AxisIndex, ...] | None:
    """``access``'s offset as one index per dimension of the host tensor its pointer receives,
    or None when the tensor's shape, a stride's dimension or a monomial's place is unknown. An
    offset that carries no stride into a tensor of two or more dimensions is a flat index: one
    index over the element count of a contiguous tensor (None for another)."""
    if access.pointer is None or access.offset is None:
        return None
    tensor = bound.tensors.get(access.pointer)
    if tensor is None:
        return None
    # a tensor known only by its element count is read as one dimension of that many elements
    shape = tensor.shape or ((tensor.count,) if tensor.count is not None else ())
    if not shape or any(d is None for d in shape):
        return None
    rank = len(shape)
    strides: dict[str, int] = {}
    for name in access.offset.symbols():
        if name.startswith((PARAM, CONST)):
            axis = _stride_axis(bound, access.pointer, name, tensor, rank)
            if axis is not None:
                strides[name] = axis
    if len(set(strides.values())) != len(strides):
        return None  # two parameters claim one dimension
    parts: dict[int, dict[tuple[str, ...], int]] = {}
    rest: dict[tuple[str, ...], int] = {}
    for monomial, coefficient in access.offset.terms:
        carried = [n for n in monomial if n in strides]
        if len(carried) > 1:
            return None
        if carried:
            reduced = list(monomial)
            reduced.remove(carried[0])
            table = parts.setdefault(strides[carried[0]], {})
            table[tuple(reduced)] = table.get(tuple(reduced), 0) + coefficient
        else:
            rest[monomial] = rest.get(monomial, 0) + coefficient
    last = rank - 1
    if rank > 1 and not parts:
        # no stride anywhere: a flat index over the whole tensor (`x + offs` with `offs < M * N`),
        # one dimension of its element count where its strides are the contiguous ones
        numel = tensor.numel()
        if not tensor.contiguous or numel is None or any(_scaled(m) for m in rest):
            return None
        shape, rank, last = (numel,), 1, 0
    if rest and any(m for m in rest):
        if last in parts:
            return None  # an index with no stride beside a stride for every dimension
        parts[last] = rest
    shape_symbols = {n for d in shape for n in d.symbols()}
    found = []
    for axis, table in sorted(parts.items()):
        if any(_scaled(m) for m in table):
            return None  # a lane or program id times a size this split did not place: a stride
        index = sx.from_table(table)
        host = bound.host(index)
        if any(n in shape_symbols for n in host.symbols()):
            return None  # a size inside an index: a stride this split did not see
        found.append(AxisIndex(axis, index, shape[axis]))
    return tuple(found)


def aligned_mask(index: "KernelIndex", access: Access) -> tuple[Poly, ...]:
    """``access.mask`` with each ``tl.arange`` lane of the mask replaced by the lane of the address
    that has the same range and tile axis: ``tl.load(p + tl.arange(0, B), mask=tl.arange(0, B) < n)``
    compares the same lanes although the two calls are two symbols (cached per access)."""
    cache = index.__dict__.setdefault("_aligned_masks", {})
    key = id(access.node)
    if key not in cache:
        cache[key] = _aligned(index, access)
    return cache[key]


def _aligned(index: "KernelIndex", access: Access) -> tuple[Poly, ...]:
    if not access.mask or access.offset is None:
        return access.mask

    def lane_key(name: str):
        rng = index.symbols.ranges.get(name)
        return (rng.lo, rng.hi, index.lane_axes.get(name)) if rng is not None else None

    address = {}
    for name in sorted(access.offset.symbols()):
        if name.startswith("lane:"):
            address.setdefault(lane_key(name), name)
    renames = {}
    for fact in access.mask:
        for name in fact.symbols():
            if name.startswith("lane:") and name not in access.offset.symbols():
                target = address.get(lane_key(name))
                if target is not None:
                    renames[name] = sx.sym(target)
    return tuple(sx.substitute(f, renames) for f in access.mask) if renames else access.mask


def _scaled(monomial: tuple[str, ...]) -> bool:
    """A lane times anything, or a run-time parameter times anything: such a factor is a stride
    (``offs * D``), not a tile size (``BLOCK * pid``)."""
    if len(monomial) < 2:
        return False
    return any(n.startswith(("lane:", PARAM)) for n in monomial)


def uncovered_axes(bound: "Bound", access: Access, mask: tuple[Poly, ...] | None = None) -> list[AxisPast]:
    """The dimensions of a masked access whose index passes the extent although the mask
    bounds another dimension (a mask on one axis of a 2D tile only)."""
    if not (access.masked and access.mask and access.mask_complete):
        return []
    indices = axis_indices(bound, access)
    if not indices or len(indices) < 2:
        return []
    facts = tuple(bound.host(f) for f in (access.mask if mask is None else mask))
    covered, open_axes = [], []
    for axis in indices:
        query = sx.add(bound.host(axis.index), sx.add(axis.extent, sx.ONE, -1), -1)
        if bound.symbols.implied(query, facts):
            if not bound.symbols.implied(query):
                covered.append(axis.axis)  # the mask, not the grid, keeps it inside
            continue
        open_axes.append((axis, query))
    if not covered:
        return []
    found = []
    for axis, query in open_axes:
        reach = bound.symbols.upper(query)
        if reach is None or not reach.is_const or reach.constant <= 0:
            continue
        if not any(n.startswith("lane:") for n in axis.index.symbols()):
            continue
        found.append(AxisPast(axis.axis, axis.index, axis.extent, reach.constant, tuple(covered), len(indices)))
    return found


@dataclass(frozen=True)
class LongMask:
    """A mask bounds dimension ``axis`` of an access by ``length`` (``offs < L``), longer than the
    dimension's ``extent`` by ``surplus`` (a host polynomial, positive for every size)."""

    axis: int
    index: Poly
    extent: Poly
    length: Poly
    surplus: Poly
    rank: int
    #: When the surplus is positive for some sizes only: sizes where it is, and its value there
    #: (``x[1::2]`` masked by ``cdiv(n, 2)``: 1 at ``n = 1``, at every odd ``n``).
    witness: tuple[dict[str, int], int] | None = None

    def name(self, axis: int) -> str:
        return {self.rank - 1: "column", self.rank - 2: "row"}.get(axis, f"dimension-{axis}") \
            if self.rank > 1 else "element"


def long_masks(bound: "Bound", access: Access, mask: tuple[Poly, ...] | None = None) -> list[LongMask]:
    """The dimensions of a masked access whose mask compares the index with a length longer than
    the dimension for every size (``mask=cols < N`` on a tensor of ``N - 1`` columns: another
    tensor's length), or never shorter and longer at some sizes (``offs < cdiv(n, 2)`` on
    ``x[1::2]``, longer for odd ``n``: ``LongMask.witness`` gives such sizes), where the lanes can
    reach past the dimension. A one-dimensional offset with a constant surplus is left to KL136
    (``tails.past_the_end`` reports it)."""
    if not (access.masked and access.mask and access.mask_complete):
        return []
    indices = axis_indices(bound, access)
    if not indices:
        return []
    facts = tuple(bound.host(f) for f in (access.mask if mask is None else mask))
    found = []
    for axis in indices:
        index = bound.host(axis.index)
        query = sx.add(index, sx.add(axis.extent, sx.ONE, -1), -1)
        if not any(n.startswith("lane:") for n in axis.index.symbols()) \
                or bound.symbols.implied(query, facts) or bound.symbols.implied(query):
            continue
        moving = {n for n in index.symbols() if not n.startswith("h:")}
        for fact in facts:
            length = sx.add(sx.add(index, sx.ONE), fact, -1)  # the fact is index - length + 1 <= 0
            if length.symbols() & moving or not fact.symbols() & moving:
                continue
            surplus = sx.add(length, axis.extent, -1)
            if surplus.is_const and axis.index is access.offset:
                continue
            witness = None
            if not _longer(surplus, bound):
                # never shorter than the dimension, and longer at some sizes (an odd length)
                witness = positive_at(surplus) if never_negative(surplus, bound.symbols) else None
                if witness is None:
                    continue
            found.append(LongMask(axis.axis, axis.index, axis.extent, length, surplus, len(indices), witness))
            break
    return found


def _positive(poly: Poly) -> bool:
    """``poly > 0`` for all sizes of at least 1: a positive constant, or every coefficient positive
    and every symbol a host size."""
    if poly.is_const:
        return poly.constant > 0
    return all(c > 0 for _, c in poly.terms) and all(n.startswith("h:") for n in poly.symbols())


def _longer(surplus: Poly, bound: "Bound") -> bool:
    """The mask's length passes the dimension: ``surplus`` is positive for every size
    (``_positive``), or never negative and growing with the sizes (``sign.grows_positive``):
    ``N - cdiv(N, 2)``, a mask by ``N`` on ``x[::2]``, is zero only at ``N = 1``.
    ``cdiv(N, 2) - cdiv(N - 1, 2)`` (``x[1::2]`` masked by the length of ``x[::2]``: one more
    element for odd ``N`` only) is not longer for every size: ``long_masks`` then asks for a
    witness."""
    return _positive(surplus) or grows_positive(surplus, bound.symbols)


@dataclass(frozen=True)
class LongMaskAccess:
    access: Access
    long: LongMask
    argument: str
    where: str


def masked_past_extent(ctx: "FileContext", kernel: "Kernel") -> list[LongMaskAccess]:
    """The masked accesses of ``kernel`` whose mask bounds a dimension by a longer length
    (``long_masks``) under a launch of the project; silent under an ``if``/``while``."""
    sites = launch_sites(ctx, kernel)
    if not sites:
        return []
    index = kernel_index(ctx, kernel)
    candidates = [a for a in index.accesses if a.kind in ("load", "store", "atomic") and a.masked and a.mask
                  and a.mask_complete and a.offset is not None and a.pointer is not None
                  and _unguarded(ctx, kernel, a.node)]
    found: list[LongMaskAccess] = []
    for access in candidates:
        for site in sites:
            longs = long_masks(bind(index, site), access, aligned_mask(index, access))
            if longs:
                argument = site.launch.bound_arguments().get(access.pointer)
                text = ast.unparse(argument) if argument is not None else access.pointer
                found.extend(LongMaskAccess(access, long, text, site.where) for long in longs)
                break
    return found


@dataclass(frozen=True)
class PartialMask:
    """A masked access of a kernel whose mask leaves dimension ``past.axis`` open under the
    launch at ``where``; ``block`` is the block of the ``cdiv`` grid axis over that extent."""

    access: Access
    past: AxisPast
    argument: str
    where: str
    block: int | None


def partially_masked(ctx: "FileContext", kernel: "Kernel") -> list[PartialMask]:
    """The masked accesses of ``kernel`` into tensors of two or more dimensions whose mask bounds
    one dimension and leaves another that passes its extent under a launch of the project.
    Silent under an ``if``/``while`` of the kernel, where the launching function or the kernel
    asserts a size with ``%`` (``assert N % 64 == 0``, ``tl.static_assert(N % BN == 0)``), and
    wherever a fact is unknown."""
    all_sites = launch_sites(ctx, kernel)
    if not all_sites:
        return []
    index = carried_index(ctx, kernel)  # pointers stepped in a K loop are read too
    candidates = [a for a in index.accesses if a.kind in ("load", "store", "atomic") and a.masked and a.mask
                  and a.mask_complete and a.offset is not None and a.pointer is not None
                  and len({index.lane_axes.get(n) for n in a.offset.symbols() if n.startswith("lane:")}) > 1]
    if not candidates or _kernel_asserts_multiple(ctx, kernel):
        return []
    candidates = [a for a in candidates if _unguarded(ctx, kernel, a.node)]
    sites = [s for s in all_sites if not _checks_divisibility(s)] if candidates else []
    found: list[PartialMask] = []
    for access in candidates:
        for site in sites:
            bound = bind(index, site)
            pasts = uncovered_axes(bound, access, aligned_mask(index, access))
            if pasts:
                argument = site.launch.bound_arguments().get(access.pointer)
                text = ast.unparse(argument) if argument is not None else access.pointer
                found.extend(PartialMask(access, past, text, site.where, _block_over(bound, past))
                             for past in pasts)
                break
    return found


def _block_over(bound: "Bound", past: AxisPast) -> int | None:
    """``k`` of a ``cdiv(extent, k)`` that counts the blocks along the open dimension: a grid axis
    of the launch, or the range of a loop whose iteration is in the index."""
    sizes = list(bound.grid)
    for name in past.index.symbols():
        rng = bound.symbols.ranges.get(name)
        if rng is not None and rng.hi is not None:
            sizes.append(rng.hi)
    for size in sizes:
        for name in size.symbols() if size is not None else ():
            atom = sx.atom_of(name)
            if atom is not None and atom.op == "cdiv" and atom.args[0] is past.extent and atom.args[1].is_const:
                return atom.args[1].constant
    return None


def _kernel_asserts_multiple(ctx: "FileContext", kernel: "Kernel") -> bool:
    """A ``tl.static_assert``/``tl.device_assert`` of the kernel tests a size with ``%``."""
    for node in subtree(kernel.node):
        if isinstance(node, ast.Call) and node.args and ctx.call_name(node) in _ASSERTS:
            if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(node.args[0])):
                return True
    return False


_ASSERTS = frozenset({triton.STATIC_ASSERT, triton.TL + "device_assert"})


def _stride_axis(bound: "Bound", pointer: str, symbol: str, tensor: shapes.Tensor, rank: int) -> int | None:
    """The dimension of ``pointer``'s tensor whose stride the launch passes for the kernel
    parameter ``symbol``: read from ``t.stride(k)`` of the same tensor, or from the host size
    being that dimension's contiguous stride (and no other's)."""
    name = symbol.split(":", 1)[1]
    passed = bound.site.launch.bound_arguments()
    argument, pointer_argument = passed.get(name), passed.get(pointer)
    if argument is not None and pointer_argument is not None:
        read = stride_read(bound.site.ctx, argument)
        if read is not None:
            source, axis = read
            if ast.dump(source) != ast.dump(pointer_argument) or not -rank <= axis < rank:
                return None  # another tensor's stride: not this split's question
            return axis % rank
    value = bound.substitution.get(symbol)
    if value is None or value.is_const:
        return None
    matches = [k for k in range(rank) if tensor.stride(k) is value]
    return matches[0] if len(matches) == 1 else None


def stride_read(ctx: "FileContext", expr: ast.expr, depth: int = 0) -> tuple[ast.expr, int] | None:
    """``(t, k)`` when ``expr`` is ``t.stride(k)``, ``t.stride()[k]`` or a name bound to one
    (``s0, s1 = t.stride()`` included)."""
    if depth > _FOLLOW:
        return None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "stride" \
            and len(expr.args) == 1 and not expr.keywords:
        axis = ctx.resolve_int(expr.args[0])
        return (expr.func.value, axis) if axis is not None else None
    if isinstance(expr, ast.Subscript) and _whole_stride(expr.value) is not None:
        axis = ctx.resolve_int(expr.slice)
        return (_whole_stride(expr.value), axis) if axis is not None else None
    if isinstance(expr, ast.Name):
        definitions = reaching_definitions(ctx, expr)
        if len(definitions) != 1 or definitions[0].kind not in ("assign", "opaque"):
            return None
        definition = definitions[0]
        if definition.kind == "assign" and definition.value is not None:
            return stride_read(ctx, definition.value, depth + 1)
        node = definition.node
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple):
            source = _whole_stride(node.value)
            names = node.targets[0].elts
            position = next((i for i, e in enumerate(names) if isinstance(e, ast.Name) and e.id == expr.id), None)
            if source is not None and position is not None and not any(isinstance(e, ast.Starred) for e in names):
                return source, position
    return None


def _whole_stride(expr: ast.expr) -> ast.expr | None:
    """``t`` in ``t.stride()``."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "stride" \
            and not expr.args and not expr.keywords:
        return expr.func.value
    return None
