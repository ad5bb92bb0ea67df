"""Accesses that pass the end of their tensor for some sizes the host allows: an unmasked tile
under a ``cdiv`` grid whose size is not a multiple of the block.

For each unmasked ``tl.load``/``tl.store``/atomic of a Triton kernel whose address the index
engine reads (``access.py``), under each launch the project makes (``launch.bind``): the
largest offset (program ids over the launched grid, ``tl.arange`` lanes over their block, the
host sizes substituted) is compared with the element count of the host tensor passed for the
pointer. With a grid of ``cdiv(n, B)`` programs of ``B`` lanes the last program reaches
``n - 1 + (B - 1)`` (the ``cdiv`` lemma in ``bounds.py``), so against an extent of ``n`` the
excess is a positive constant: the access passes the end whenever ``n % B != 0``.

Silent (unknown stays unknown) on: accesses under an ``if`` or in a ``while`` loop of the kernel
(a guard may cover them), masked accesses, addresses, grids or extents that cannot be read, an
excess that is not a positive constant, and launches whose function tests a size with ``%``
(``assert n % BLOCK == 0``: the host rules out the tail).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.index import symexpr as sx
from kernelint.model.index.access import Access, kernel_index
from kernelint.model.index.launch import Bound, bind, launch_sites
from kernelint.model.index.symexpr import Poly
from kernelint.model.project import shapes
from kernelint.model.core.walk import subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_TILE_KINDS = ("load", "store", "atomic")


@dataclass(frozen=True)
class PastTheEnd:
    access: Access
    #: The launch argument the pointer receives, its element count and how far past the end the
    #: last program reaches.
    argument: str
    extent: str
    excess: int
    #: ``(size, block)`` of the ``cdiv`` grid axis whose last program passes, as text.
    tail: tuple[str, int] | None
    where: str
    #: A masked access of the same kernel at the same offsets (a mask computed but not passed).
    masked_twin: Access | None = None
    #: The access is masked, but its mask lets the address pass the end by ``excess``
    #: (``tl.load(x + offs + 1, mask=offs < n)``).
    mask_short: bool = False
    #: For such an access whose mask compares the address itself with a bound past the end
    #: (``tl.store(out + offs, v, mask=offs < n + 1)``): that bound, as text; None when the
    #: address adds to what the mask compares.
    mask_bound: str | None = None


def past_the_end(ctx: "FileContext", kernel: "Kernel") -> list[PastTheEnd]:
    all_sites = launch_sites(ctx, kernel)
    if not all_sites:
        return []
    index = kernel_index(ctx, kernel)
    candidates = [a for a in index.accesses if a.kind in _TILE_KINDS and a.pointer is not None
                  and a.offset is not None and _unguarded(ctx, kernel, a.node)
                  and (not a.masked or (a.mask and a.mask_complete))
                  and any(n.startswith("lane:") for n in a.offset.symbols())]
    if not candidates:
        return []
    sites = [s for s in all_sites if not _checks_divisibility(s)]
    bounds = [bind(index, site) for site in sites]
    found: list[PastTheEnd] = []
    for access in candidates:
        for bound in bounds:
            result = _past(bound, access) if not access.masked else _past_the_mask(bound, access)
            if result is not None:
                twin = next((a for a in index.accesses if a.masked and a.offset is access.offset
                             and a.node is not access.node), None)
                found.append(PastTheEnd(access, *result[:5], masked_twin=None if access.masked else twin,
                                        mask_short=access.masked, mask_bound=result[5] if access.masked else None))
                break
    return found


def _past(bound: Bound, access: Access):
    tensor = bound.tensors.get(access.pointer)
    extent = tensor.numel() if tensor is not None else None
    if extent is None:
        return None
    reach = bound.symbols.upper(bound.host(access.offset))
    if reach is None:
        return None
    excess = sx.add(reach, sx.add(extent, sx.ONE, -1), -1)
    if not excess.is_const or excess.constant <= 0:
        return None
    argument = bound.site.launch.bound_arguments().get(access.pointer)
    return (ast.unparse(argument) if argument is not None else access.pointer, shapes.render(extent),
            excess.constant, _tail(bound), bound.site.where)


def _past_the_mask(bound: Bound, access: Access):
    """A masked access whose mask bounds the offsets against the tensor's end, but whose address
    adds a constant to them: ``x + offs + 1`` under ``offs < n`` reaches ``n``. The excess is
    read against each mask fact (``excess - fact`` a positive constant: the fact allows it) and
    must not be ruled out by the facts together."""
    tensor = bound.tensors.get(access.pointer)
    extent = tensor.numel() if tensor is not None else None
    if extent is None:
        return None
    excess = sx.add(bound.host(access.offset), sx.add(extent, sx.ONE, -1), -1)
    facts = tuple(bound.host(f) for f in access.mask)
    if bound.symbols.implied(excess, facts):
        return None
    allowed = [(d.constant, f) for d, f in ((sx.add(excess, f, -1), f) for f in facts) if d.is_const and d.constant > 0]
    if not allowed:
        return None
    least, fact = min(allowed, key=lambda item: item[0])
    argument = bound.site.launch.bound_arguments().get(access.pointer)
    return (ast.unparse(argument) if argument is not None else access.pointer, shapes.render(extent),
            least, None, bound.site.where, _bound_past_the_end(bound.host(access.offset), fact))


def _bound_past_the_end(offset: Poly, fact: Poly) -> str | None:
    """The bound ``L`` of a mask fact ``index - L + 1 <= 0`` whose index is the address itself
    (``offs < n + 1`` on ``x + offs``), as text; None when the address adds a constant to the
    index the mask compares (``offs < n`` on ``x + offs + 1``). The constant of the fact is read as
    part of the bound."""
    moving = {n for n in offset.symbols() if not n.startswith("h:")}
    index = sx.from_table({m: c for m, c in fact.terms if set(m) & moving})
    if sx.add(offset, index, -1) is not sx.ZERO:
        return None
    return shapes.render(sx.add(sx.add(index, sx.ONE), fact, -1))


def _tail(bound: Bound) -> tuple[str, int] | None:
    """The ``cdiv(size, block)`` of the launched grid (the axis whose last tile is partial)."""
    for size in bound.grid:
        if size is None:
            continue
        for name in size.symbols():
            atom = sx.atom_of(name)
            if atom is not None and atom.op == "cdiv" and atom.args[1].is_const:
                return shapes.render(atom.args[0]), atom.args[1].constant
    return None


def _unguarded(ctx: "FileContext", kernel: "Kernel", node: ast.AST) -> bool:
    """No ``if`` or ``while`` of the kernel encloses ``node`` (a guard may cover the tail)."""
    for ancestor in ctx.ancestors(node):
        if ancestor is kernel.node:
            return True
        if isinstance(ancestor, (ast.If, ast.While, ast.IfExp)):
            return False
    return True


def _checks_divisibility(site) -> bool:
    """The launching function tests a size with ``%`` (``assert n % BLOCK == 0``)."""
    function = site.ctx.function_of(site.node)
    scope = function if function is not None else site.ctx.tree
    for node in subtree(scope):
        if isinstance(node, (ast.Assert, ast.If, ast.Compare)):
            test = node.test if isinstance(node, (ast.Assert, ast.If)) else node
            if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(test)):
                return True
    return False


@dataclass(frozen=True)
class BlockPastTheEnd:
    """A block-pointer access whose block passes the extent of dimension ``dim`` unchecked."""

    access: Access
    dim: int
    extent: str
    block: int
    excess: int
    where: str


def block_past_the_end(ctx: "FileContext", kernel: "Kernel") -> list[BlockPastTheEnd]:
    """``tl.load``/``tl.store`` of a ``tl.make_block_ptr`` block without ``boundary_check`` on a
    dimension whose extent is a run-time size the block can pass under a launch of the project
    (tensor descriptors are bounds-checked by the hardware and left out)."""
    all_sites = launch_sites(ctx, kernel)
    if not all_sites:
        return []
    index = kernel_index(ctx, kernel)
    candidates = [a for a in index.accesses if a.kind.startswith("block_") and a.block is not None
                  and not a.block.descriptor and a.boundary_check is not None
                  and _unguarded(ctx, kernel, a.node)]
    if not candidates:
        return []
    sites = [s for s in all_sites if not _checks_divisibility(s)]
    bounds = [bind(index, site) for site in sites]
    found: list[BlockPastTheEnd] = []
    for access in candidates:
        block = access.block
        if not (len(block.shape) == len(block.offsets) == len(block.block_shape)):
            continue
        for dim, (extent, offset, size) in enumerate(zip(block.shape, block.offsets, block.block_shape)):
            if dim in access.boundary_check or extent is None or offset is None or size is None:
                continue
            result = next((r for r in (_block_excess(b, extent, offset, size) for b in bounds) if r), None)
            if result is not None:
                found.append(BlockPastTheEnd(access, dim, result[0], result[3], result[1], result[2]))
    return found


def _block_excess(bound: Bound, extent: sx.Poly, offset: sx.Poly, size_poly: sx.Poly):
    block = bound.host(size_poly)
    if not block.is_const or block.constant <= 0:
        return None
    size = block.constant
    host_extent = bound.host(extent)
    if not any(shapes.growth(n) in (shapes.DATA, shapes.DIM, shapes.DATADEP)
               for leaf in shapes.leaves(host_extent) for n in leaf):
        return None  # a constant or tuning extent: its multiple of the block is the author's choice
    reach = bound.symbols.upper(bound.host(offset))
    if reach is None:
        return None
    excess = sx.add(sx.add(reach, sx.const(size - 1)), sx.add(host_extent, sx.ONE, -1), -1)
    if not excess.is_const or excess.constant <= 0:
        return None
    return shapes.render(host_extent), excess.constant, bound.site.where, size
