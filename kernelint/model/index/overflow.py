"""int32 address overflow, decided from the program model: which int32 products of an index and a
size (``intwidth.int32_address_products``) can pass 2^31 under the launches the project makes.

A product overflows for some input when, under a launch (``launch.bind``):

- it builds the address of a tensor whose element count grows with the data: the host shape of
  the pointer passed multiplies a per-call size by other sizes and ends in a feature dimension
  (one read as the last dimension of a tensor: ``B × T × H × K``, ``tokens × hidden``), not a
  table indexed by batch and head (``(B, H)`` scales), per position (``(batch, nheads, nchunks,
  chunk_size)``), a ``(num_experts,)`` vector or ``cu_seqlens``. A rank-3 tensor is left out: its
  shape may be ``(tokens, heads, head_dim)`` or ``(batch, seq, heads)`` / ``(batch, heads,
  seq)`` per-position values, and the host facts do not say which (on the corpus, 12 of 13
  rank-3 findings were per-position tables or decode-time outputs); and
- its upper bound under the launch (program ids over the grid, parameters replaced by the host
  sizes passed) grows with a per-call size times another runtime size (``(B - 1) × T × H × K``),
  or cannot be bounded because the index was loaded from memory (a token offset from
  ``cu_seqlens``, which spans the whole tensor).

A head offset ``i_h * K`` (heads × head size), a product with a numeric bound under 2^31 and
any launch whose facts cannot be read are not overflows: unknown stays unknown.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.index import intwidth
from kernelint.model.core.dataflow import is_load, reaches
from kernelint.model.index.access import kernel_index
from kernelint.model.index.launch import bind, launch_sites
from kernelint.model.index import symexpr as sx
from kernelint.model.index.symexpr import Poly
from kernelint.model.project import guards, shapes

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

LIMIT = 2**31
_RUNTIME = (shapes.DATA, shapes.DIM, shapes.DATADEP)
_PER_CALL = (shapes.DATA, shapes.DATADEP)


@dataclass(frozen=True)
class Overflow:
    product: intwidth.WideningProduct
    #: The kernel parameter whose tensor the address points into, and the launch argument.
    pointer: str
    argument: str
    #: The tensor's symbolic shape and element count, as text (``(B, T, H, K)``, ``B × T × H × K``).
    shape: str
    numel: str
    #: The product's upper bound under the launch (None: the index is loaded from memory).
    reach: str | None
    where: str
    #: How many runtime sizes the tensor's element count multiplies (the larger, the sooner).
    factors: int = 0
    #: What must pass 2^31 for the product to wrap (its bound's leading term, else the count).
    condition: str = ""


def int32_overflows(ctx: "FileContext", kernel: "Kernel") -> list[Overflow]:
    # a launch under an `if` the host sizes decide against it never runs
    sites = [site for site in launch_sites(ctx, kernel) if not guards.never_runs(site.ctx.project, site.ctx, site.node)]
    if not sites:
        return []
    products = intwidth.int32_address_products(ctx, kernel)
    if not products:
        return []
    index = kernel_index(ctx, kernel)
    bounds = [bind(index, site) for site in sites]
    found: list[Overflow] = []
    sized: dict = {}
    for product in products:
        pointers = _pointers_fed(ctx, index, product.product)
        overflow = _first_overflow(index, bounds, product, pointers, sized)
        if overflow is not None:
            found.append(overflow)
    return found


def _pointers_fed(ctx: "FileContext", index, product: ast.AST) -> list[str]:
    """The pointer parameters whose accesses have ``product`` in their address. A value loaded
    through ``product`` is not the product: ``cu_seqlens + (i + 1) * stride`` addresses
    ``cu_seqlens``, not the rows its loaded value then offsets."""
    return [pointer for pointer, nodes in _address_nodes(ctx, index) if id(product) in nodes]


def _address_nodes(ctx: "FileContext", index) -> list[tuple[str, set[int]]]:
    """Per pointer parameter, the nodes its addresses are computed from (through names, not
    through loads), once per kernel index: a kernel's products all ask about the same addresses."""
    cached = index.__dict__.get("_address_nodes")
    if cached is not None:
        return cached
    by_pointer: dict[str, set[int]] = {}
    for access in index.accesses:
        if access.pointer is None:
            continue
        address = access.block.node if access.block is not None else access.node.args[0] if access.node.args else None
        if address is None:
            continue
        nodes = by_pointer.setdefault(access.pointer, set())
        reaches(ctx, address, lambda n: nodes.add(id(n)) and False, lambda n: is_load(ctx, n))
    found = list(by_pointer.items())
    index.__dict__["_address_nodes"] = found
    return found


def _first_overflow(index, bounds, product: intwidth.WideningProduct, pointers: list[str],
                    sized: dict) -> Overflow | None:
    value = index.value(product.product)
    if value is None:
        return None
    for bound in bounds:
        fed = [(pointer, found) for pointer in pointers
               for found in [_activation_tensor(bound, pointer, sized)] if found is not None]
        if not fed:
            continue
        host = bound.host(value)
        reach = bound.symbols.upper(host)
        # an index loaded from memory (a token offset) has no bound here: it spans the tensor
        loaded = any(name.startswith("loaded:") for name in (reach or value).symbols())
        if loaded:
            reach = None
        elif reach is None or not _grows_with_data(reach, 2) or bound.symbols.interval(reach)[1] < LIMIT:
            continue
        pointer, (tensor, numel) = fed[0]
        condition = _leading_term(reach) if reach is not None else None
        if condition is None or ".stride(" in condition:
            condition = shapes.render(_whole_rows(numel))
        argument = bound.site.launch.bound_arguments().get(pointer)
        return Overflow(product, pointer, ast.unparse(argument) if argument is not None else pointer,
                        "(" + ", ".join(_dimension_text(d) for d in tensor.shape) + ")",
                        shapes.render(numel), shapes.render(reach) if reach is not None else None,
                        bound.site.where, max(len(g) for g in shapes.factor_groups(numel)), condition)
    return None


def _activation_tensor(bound, pointer: str, sized: dict):
    """``(tensor, numel)`` when the tensor passed for ``pointer`` under ``bound`` grows with the
    data (``_activation_sized``), else None; kept in ``sized`` for the kernel's other products.
    A rank-3 shape is (tokens, heads, head_dim) or (batch, seq, heads): unknown, so None."""
    key = (id(bound), pointer)
    if key not in sized:
        tensor = bound.tensors.get(pointer)
        numel = tensor.numel() if tensor is not None else None
        usable = numel is not None and len(tensor.shape) != 3 and _activation_sized(tensor, numel)
        sized[key] = (tensor, numel) if usable else None
    return sized[key]


def _leading_term(poly: Poly) -> str | None:
    """The highest-degree positive term of ``poly``, without its coefficient, as text."""
    terms = [(m, c) for m, c in poly.terms if m and c > 0]
    if not terms:
        return None
    monomial = max(terms, key=lambda t: len(t[0]))[0]
    return shapes.render(_whole_rows(sx.from_table({monomial: 1})))


def _whole_rows(poly: Poly) -> Poly:
    """``poly`` with each ``(n // d) × d`` read as ``n``, for the message: the rows of
    ``x.view(-1, N)`` times ``N`` are all of ``x`` (at most ``n``, short by less than ``d``)."""
    table: dict = {}
    for monomial, coefficient in poly.terms:
        rest = list(monomial)
        for name in monomial:
            atom = sx.atom_of(name)
            if atom is None or atom.op != "floordiv" or name not in rest or len(atom.args[1].terms) != 1:
                continue
            divisor, factor = atom.args[1].terms[0]
            if factor != 1 or not divisor or any(rest.count(d) < divisor.count(d) for d in set(divisor)):
                continue
            rest.remove(name)
            for d in divisor:
                rest.remove(d)
            for term, c in atom.args[0].terms:
                key = tuple(sorted([*rest, *term]))
                table[key] = table.get(key, 0) + coefficient * c
            break
        else:
            table[monomial] = table.get(monomial, 0) + coefficient
    return sx.from_table(table)


def _dimension_text(dim: Poly | None) -> str:
    if dim is None:
        return "?"
    text = shapes.render(dim)
    # a lone x.numel() // N is bracketed for a product; a dimension of its own needs no brackets
    return text[1:-1] if len(dim.terms) == 1 and dim.terms[0][1] == 1 and len(dim.terms[0][0]) == 1 \
        and text.startswith("(") and text.endswith(")") else text


def _activation_sized(tensor: shapes.Tensor, numel: Poly) -> bool:
    """An element count that grows with the data: a per-call size times others, where the
    tensor's own last dimension is a feature dimension (read as the last dimension of a tensor:
    ``(M, N)`` from ``M, N = x.shape``, ``(B, T, H, K)``). A table indexed by batch and head
    (``(B, H)`` scales) or per position (``(batch, nheads, nchunks, chunk_size)``) ends in
    another kind of size."""
    if not tensor.shape or tensor.shape[-1] is None:
        return False
    if not any(shapes.is_last_dimension(n) for leaf in shapes.leaves(tensor.shape[-1]) for n in leaf):
        return False
    if not _per_call_outside_tiles(_whole_rows(numel)):
        return False
    for groups in shapes.factor_groups(numel):
        names = [n for g in groups for n in g]
        if len(groups) >= 2 and any(shapes.growth(n) in _PER_CALL for n in names):
            return True
    return False


def _per_call_outside_tiles(poly: Poly, depth: int = 0) -> bool:
    """Some term of ``poly`` grows with a per-call size other than through a count of tiles: a
    ``(cdiv(M, block_size), K)`` scale table holds one row per block of ``M`` rows, so it passes
    2^31 only after the tensor it describes is ``block_size`` times larger. A division by a
    runtime dimension is no tile count (``x.numel() // N`` rows of ``N``)."""
    for monomial, _ in poly.terms:
        for name in monomial:
            if shapes.growth(name) in _PER_CALL:
                return True
            atom = sx.atom_of(name)
            if atom is None or depth > 4:
                continue
            if atom.op in ("cdiv", "floordiv"):
                divisor = {n for leaf in shapes.leaves(atom.args[1]) for n in leaf}
                if not any(shapes.growth(n) in _RUNTIME for n in divisor):
                    continue  # a count of tiles of a block size
                inner = atom.args[:1]
            else:
                inner = atom.args
            if any(_per_call_outside_tiles(arg, depth + 1) for arg in inner):
                return True
    return False


def _grows_with_data(poly: Poly, factors: int) -> bool:
    """Some term of ``poly`` multiplies at least ``factors`` runtime sizes, one of them per call."""
    for groups in shapes.factor_groups(poly):
        runtime = [g for g in groups if any(shapes.growth(n) in _RUNTIME for n in g)]
        if len(runtime) >= factors and any(shapes.growth(n) in _PER_CALL for g in runtime for n in g):
            return True
    return False
