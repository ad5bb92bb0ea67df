"""The launch grid, one model for the three DSLs: the entries a launch's grid evaluates to, each
as a symbolic host size, and whether an axis can pass CUDA's limits.

A grid is ``kernel[grid](...)`` (Triton: a tuple, a name bound to one, ``lambda META: (...)`` or a
function returning one), ``ct.launch(stream, grid, kernel, args)`` (cuTile) or
``kernel(...).launch(grid=[...])`` (CuTe DSL). CUDA takes ``gridDim.x`` up to 2^31 - 1 and
``gridDim.y``/``gridDim.z`` up to 65,535; none of the three DSLs splits a larger grid.

An axis *can pass* its limit when its size grows with the input without a bound
(``project/shapes.py``): on axis 1 or 2, a product with a per-call size (``B * H``,
``batch * cdiv(T, BT)``, ``len(cu_seqlens) - 1`` times heads), the rows of a tensor flattened to its last dimension
(``x.view(-1, N).shape[0]``: batch × sequence) or any value read from the data
(``lengths.max().item()``); on axis 0, nothing is reported (see ``breach``). Sizes bounded by a constant (``min(B * H, 65535)``),
tile counts of model dimensions (``cdiv(K, BK) * cdiv(V, BV)``) and opaque host parameters do not
count.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.index import symexpr as sx
from kernelint.model.index.symexpr import Poly
from kernelint.model.project import shapes
from kernelint.model.core.reaching import value_at
from kernelint.model.core.memo import kept_on

if TYPE_CHECKING:
    from kernelint.model.context import FileContext, Launch

#: CUDA's largest gridDim.y / gridDim.z, and gridDim.x.
AXIS_LIMITS = (2**31 - 1, 65535, 65535)
_RUNTIME = (shapes.DATA, shapes.DIM, shapes.DATADEP)
_PER_CALL = (shapes.DATA, shapes.DATADEP)


@dataclass(frozen=True)
class GridAxis:
    axis: int
    node: ast.expr
    size: Poly | None


@dataclass(frozen=True)
class Breach:
    """An axis that passes its limit for some inputs: ``factors`` are the labels of the host
    sizes whose product does (``("B", "H")``), ``data_dependent`` when one is read from the data."""

    axis: int
    limit: int
    factors: tuple[str, ...]
    data_dependent: bool = False
    #: (label, ``path:line``) of each host size, where it is read.
    sources: tuple[tuple[str, str], ...] = ()
    #: The term of the axis size that passes the limit, as text (``B × H``).
    term: str = ""
    #: The term is (a tile count of) the rows of a tensor flattened to its last dimension
    #: (``x.view(-1, N)``: every leading dimension multiplied, batch × sequence).
    rows: bool = False

    def condition(self) -> str:
        """``B × H > 65,535``."""
        return f"{self.term or ' × '.join(self.factors)} > {self.limit:,}"


def grid_entries(ctx: "FileContext", launch: "Launch") -> list[list[ast.expr]]:
    """The tuple or list entries a launch's grid evaluates to (several when a grid function has
    several returns); empty when the grid cannot be read."""
    grid = launch.grid
    if grid is None:
        return []
    value = grid
    if isinstance(value, ast.Name):
        held = value_at(ctx, value)
        if held is not None:
            value = held
        else:
            functions = [d.node for d in ctx.definitions(value.id, value) if d.kind == "def"]
            if len(functions) == 1:
                returns = [n.value for n in ast.walk(functions[0]) if isinstance(n, ast.Return) and n.value]
                return [list(r.elts) for r in returns if isinstance(r, (ast.Tuple, ast.List))]
    if isinstance(value, ast.Lambda):
        value = value.body
    if isinstance(value, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in value.elts):
            return []
        return [list(value.elts)]
    return []




def grid_axes(ctx: "FileContext", launch: "Launch") -> list[list[GridAxis]]:
    """Each alternative grid of ``launch`` as symbolic axis sizes (``size`` None where unknown),
    once per file model and launch."""
    per_file = kept_on(ctx, "grid_axes")
    key = id(launch.node)
    if key not in per_file:
        per_file[key] = _grid_axes(ctx, launch)
    return per_file[key]


def _grid_axes(ctx: "FileContext", launch: "Launch") -> list[list[GridAxis]]:
    view = ctx.project
    return [
        [GridAxis(axis, entry, shapes.size_of(view, ctx, entry)) for axis, entry in enumerate(entries[:3])]
        for entries in grid_entries(ctx, launch)
    ]


def breach(axis: GridAxis) -> Breach | None:
    """How ``axis`` passes CUDA's limit for some inputs, or None when it cannot (or it cannot be
    told)."""
    if axis.size is None or axis.axis > 2:
        return None
    limit = AXIS_LIMITS[axis.axis]
    for term, groups, monomial in _terms_and_groups(axis.size):
        runtime = [[n for n in group if shapes.growth(n) in _RUNTIME] for group in groups]
        runtime = [group for group in runtime if group]
        names = [n for group in runtime for n in group]
        labels = tuple(dict.fromkeys(shapes.label(n) for n in names))
        sources = tuple(dict.fromkeys((shapes.label(n), shapes.SYMBOLS[n].where) for n in names))
        if axis.axis == 0:
            # One program per element would need over 2^31 elements; on the corpus every such
            # grid (11, issue 20) was one program per index or row, which never gets there.
            continue
        if any(shapes.growth(n) == shapes.DATADEP for n in names):
            return Breach(axis.axis, limit, labels, data_dependent=True, sources=sources, term=term)
        if len(runtime) >= 2 and any(shapes.growth(n) in _PER_CALL for n in names):
            return Breach(axis.axis, limit, labels, sources=sources, term=term)
        if len(runtime) == 1 and any(_flattened_rows(n) for n in monomial):
            return Breach(axis.axis, limit, labels, sources=sources, term=term, rows=True)
    return None


def _flattened_rows(name: str) -> bool:
    """``name`` is the row count of a tensor flattened to rows of its last dimension,
    ``x.numel() // x.shape[-1]`` (``x.view(-1, N)``, ``x.reshape(-1, x.shape[-1])`` with ``N`` read
    as the last dimension, ``*batch, N = x.shape``): one program per row. The code flattens every
    leading dimension, so the count is a token count (batch × sequence), not a batch size; a lone
    ``x.shape[0]`` is not told from a batch and is not taken, nor is a tile count of the rows
    (``cdiv(rows, 128)`` passes 65,535 only past 8 million rows)."""
    atom = sx.atom_of(name)
    if atom is None or atom.op != "floordiv":
        return False
    numerator, divisor = atom.args
    if divisor.is_const or len(numerator.terms) != 1 or len(numerator.terms[0][0]) != 1:
        return False
    count = numerator.terms[0][0][0]
    return shapes.growth(count) == shapes.DATA and shapes.label(count).endswith(".numel()") \
        and bool(divisor.symbols()) and all(shapes.is_last_dimension(n) for n in divisor.symbols())


def _terms_and_groups(size: Poly):
    """(text of the monomial, its factor groups, the monomial) for each way ``size`` grows."""
    from kernelint.model.index.symexpr import from_table

    found = []
    for monomial, coefficient in size.terms:
        term = from_table({monomial: abs(coefficient)})
        for groups in shapes.factor_groups(term):
            found.append((shapes.render(term), groups, monomial))
    return found
