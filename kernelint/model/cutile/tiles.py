"""cuTile code as the compiler sees it: which functions are tile code, what shape and element
type a tile value provably has, and what a ``ct.launch`` grid provably is.

Tile code is a ``@ct.kernel``, a ``@ct.function`` (unless ``host=True``), a function wrapped by
a ``ct.kernel(f)`` call, and every function of the same file such a function calls: cuTile compiles an undecorated callee as tile code
(``ct.function``'s docstring: "This process is recursive"). Helpers imported from another file
are not followed.

Shapes and dtypes are read only where the source states them (``ct.load(..., shape=S)``,
``ct.full(S, v, dtype=D)``, ``ct.astype(x, D)``); a tile loaded from an array has the array's
dtype, which kernel text does not say.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core import calls_graph
from kernelint.model.core.calls import argument, signature_argument
from kernelint.model.core.dataflow import reaches
from kernelint.model.dsl import cutile
from kernelint.model.core.reaching import reaching_definitions, value_at, walk_value
from kernelint.model.project.sizes import power_of_two_ceiling
from kernelint.model.core.walk import subtree
from kernelint.model.core.memo import kept_on

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_DEPTH = 12


# --- tile code -----------------------------------------------------------------------------------

def tile_functions(ctx: "FileContext") -> dict[int, ast.AST]:
    """``id(node) -> node`` of every function of the file that runs as cuTile tile code."""
    found = kept_on(ctx, "tile_functions").get(None)
    if found is not None:
        return found
    found = {}
    pending = [k.node for k in ctx.kernels if k.dsl == "cutile"]
    pending += [f for f in ctx.nodes(ast.FunctionDef) if _is_tile_function(ctx, f)]
    # ``ct.kernel(body)`` / ``ct.function(body)`` called on a function rather than decorating it
    for call in ctx.nodes(ast.Call):
        if ctx.call_name(call) in (cutile.KERNEL, cutile.FUNCTION) and call.args and isinstance(call.args[0], ast.Name):
            pending += [f for f in ctx.nodes(ast.FunctionDef) if f.name == call.args[0].id]
    while pending:
        function = pending.pop()
        if id(function) in found:
            continue
        found[id(function)] = function
        for node in subtree(function):
            if isinstance(node, ast.Call):
                pending += ctx.local_functions_called(node)
    kept_on(ctx, "tile_functions")[None] = found
    return found


def _is_tile_function(ctx: "FileContext", function: ast.FunctionDef) -> bool:
    """``@ct.function`` or ``@ct.function(...)`` without ``host=True``."""
    for decorator in function.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        if ctx.qualname(call.func if call else decorator) != cutile.FUNCTION:
            continue
        host = argument(call, "host") if call else None
        return not (isinstance(host, ast.Constant) and host.value is True)
    return False


def tile_function_of(ctx: "FileContext", node: ast.AST) -> ast.AST | None:
    """The tile-code function whose body holds ``node``, or None (host code, other DSLs)."""
    function = ctx.function_of(node)
    if function is None:
        return None
    return tile_functions(ctx).get(id(function))


def block_id_in(ctx: "FileContext", expr: ast.expr, depth: int = 3) -> ast.AST | None:
    """The ``ct.bid(...)`` call ``expr`` is computed from, through assignments and, for a
    parameter of a tile helper, through what every call site in the file passes for it; None
    when there is none (or a caller passes something else)."""
    found = reaches(ctx, expr, lambda n: ctx.is_call(n, cutile.BID))
    if found is not None or depth <= 0 or not isinstance(expr, ast.Name):
        return found
    definitions = ctx.definitions(expr.id, expr)
    if len(definitions) != 1 or definitions[0].kind != "param":
        return None
    passed = calls_graph.arguments_for(ctx, definitions[0].node)
    if not passed:
        return None
    sources = [block_id_in(ctx, value, depth - 1) for value in passed]
    return sources[0] if all(source is not None for source in sources) else None


# --- tile values ---------------------------------------------------------------------------------

def _single(ctx: "FileContext", expr: ast.expr) -> ast.expr | None:
    """The one expression a name certainly holds where it is read (``reaching.value_at``), or
    ``expr`` itself when it is not a name."""
    return value_at(ctx, expr) if isinstance(expr, ast.Name) else expr


def tuple_entries(ctx: "FileContext", expr: ast.expr | None) -> list[ast.expr] | None:
    """The entries of a literal tuple (``(i, j)``, or a name bound to one); a lone scalar index is
    a 1-tuple. None when the entries cannot be read."""
    if expr is None:
        return None
    value = _single(ctx, expr)
    if isinstance(value, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in value.elts):
            return None
        return list(value.elts)
    if isinstance(value, (ast.BinOp, ast.Constant, ast.Call)):
        return [expr]
    return None


def tile_shape(ctx: "FileContext", expr: ast.expr) -> list[ast.expr] | None:
    """The shape entries of tile value ``expr`` as the source states them: the ``shape=`` of the
    ``ct.load`` it came from, the shape of ``ct.full/zeros/ones`` or ``reshape``, followed through
    names (a loop-carried accumulator keeps the shape it started with), ``astype``, elementwise
    arithmetic and ``ct.mma``'s accumulator."""
    return _Shapes(ctx).of(expr, _DEPTH)


class _Shapes:
    def __init__(self, ctx: "FileContext"):
        self.ctx = ctx
        self.visiting: set[int] = set()

    def of(self, expr: ast.expr | None, depth: int) -> list[ast.expr] | None:
        if depth <= 0 or expr is None:
            return None
        ctx = self.ctx
        if isinstance(expr, ast.Name):
            return self._name(expr, depth)
        if isinstance(expr, ast.BinOp):
            return self.of(expr.left, depth - 1) or self.of(expr.right, depth - 1)
        if not isinstance(expr, ast.Call):
            return None
        name = ctx.call_name(expr)
        func = expr.func
        if name in (cutile.LOAD, cutile.FULL, cutile.ZEROS, cutile.ONES, cutile.CT + "reshape"):
            return tuple_entries(ctx, signature_argument(expr, cutile.SIGNATURES[name], "shape"))
        if name == cutile.ARANGE:
            size = signature_argument(expr, cutile.SIGNATURES[name], "size")
            return [size] if size is not None else None
        if name == cutile.ASTYPE and expr.args:
            return self.of(expr.args[0], depth - 1)
        if name == cutile.MMA:
            return self.of(signature_argument(expr, cutile.SIGNATURES[name], "acc"), depth - 1)
        if name is None and isinstance(func, ast.Attribute):
            if func.attr == "astype":
                return self.of(func.value, depth - 1)
            if func.attr == "reshape":
                return tuple_entries(ctx, argument(expr, "shape", 0))
        return None

    def _name(self, name: ast.Name, depth: int) -> list[ast.expr] | None:
        shapes = []
        for definition in reaching_definitions(self.ctx, name):
            key = id(definition.node)
            if key in self.visiting:
                continue  # loop-carried: the shape it entered the loop with decides
            if definition.kind != "assign" or definition.value is None:
                return None
            self.visiting.add(key)
            try:
                shape = self.of(definition.value, depth - 1)
            finally:
                self.visiting.discard(key)
            if shape is None:
                return None
            shapes.append(shape)
        if not shapes or any([ast.dump(e) for e in s] != [ast.dump(e) for e in shapes[0]] for s in shapes):
            return None
        return shapes[0]


def cutile_dtype(ctx: "FileContext", expr: ast.expr | None) -> str | None:
    """The ``cuda.tile`` dtype ``expr`` names literally (``ct.float32`` -> ``"float32"``), following
    names bound to one; None for ``x.dtype``, conditional choices and anything else."""
    if expr is None:
        return None
    value = _single(ctx, expr) if isinstance(expr, ast.Name) else expr
    qualname = ctx.qualname(value) if value is not None else None
    if qualname and qualname.startswith(cutile.CT):
        name = qualname[len(cutile.CT):]
        return name if name in cutile.DTYPES else None
    return None


class _Dtypes:
    """Element type of tile values; cycles through loop-carried names give up (None)."""

    def __init__(self, ctx: "FileContext"):
        self.ctx = ctx
        self.visiting: set[int] = set()

    def of(self, expr: ast.expr, depth: int = _DEPTH) -> str | None:
        if depth <= 0:
            return None
        ctx = self.ctx
        if isinstance(expr, ast.Name):
            return self._name(expr, depth)
        if isinstance(expr, ast.BinOp) and not isinstance(expr.op, ast.MatMult):
            sides = [s for s in (expr.left, expr.right) if not _is_number(s)]
            kinds = {self.of(s, depth - 1) for s in sides}
            # A Python number takes the tile's type; two tiles of one type keep it.
            return kinds.pop() if len(kinds) == 1 and not isinstance(expr.op, ast.Div) else None
        if not isinstance(expr, ast.Call):
            return None
        name = ctx.call_name(expr)
        func = expr.func
        if name == cutile.ASTYPE:
            return cutile_dtype(ctx, signature_argument(expr, cutile.SIGNATURES[name], "dtype"))
        if name is None and isinstance(func, ast.Attribute) and func.attr == "astype":
            return cutile_dtype(ctx, argument(expr, "dtype", 0))
        if name in (cutile.FULL, cutile.ZEROS, cutile.ONES):
            return cutile_dtype(ctx, signature_argument(expr, cutile.SIGNATURES[name], "dtype"))
        if name == cutile.MMA:
            acc = signature_argument(expr, cutile.SIGNATURES[name], "acc")
            return self.of(acc, depth - 1) if acc is not None else None
        if name in cutile.SAME_TILE_FUNCTIONS and expr.args:
            return self.of(expr.args[0], depth - 1)
        if name == cutile.LOAD:
            return self._array(expr)
        if name is None and isinstance(func, ast.Attribute) and func.attr in cutile.TILE_METHODS:
            return self.of(func.value, depth - 1)
        return None

    def _array(self, load: ast.Call) -> str | None:
        """``ct.load(A, ...)`` of a kernel's array parameter ``A``: the dtype of the host tensors
        every launch the project shows passes for ``A`` (the program model's host facts), when
        they all have one; None otherwise (no launch found, or a launch that cannot be read)."""
        from kernelint.model.project.host import parameter_dtypes

        ctx = self.ctx
        array = signature_argument(load, cutile.SIGNATURES[cutile.LOAD], "array")
        if not isinstance(array, ast.Name):
            return None
        definitions = ctx.definitions(array.id, array)
        if len(definitions) != 1 or definitions[0].kind != "param":
            return None
        kernel = next((k for k in ctx.kernels if k.node is ctx.function_of(load)), None)
        if kernel is None:
            return None
        found = parameter_dtypes(ctx.project, kernel, ctx, array.id)
        if not found.complete or len(found.known) != 1:
            return None
        dtype = next(iter(found.known))  # torch's floating names are cuTile's (float32, bfloat16, ...)
        return dtype if dtype in cutile.FLOAT_TYPES else None

    def _name(self, name: ast.Name, depth: int) -> str | None:
        kinds = set()
        definitions = reaching_definitions(self.ctx, name)
        if not definitions:
            return None
        for definition in definitions:
            key = id(definition.node)
            if key in self.visiting:
                continue  # loop-carried: the other bindings decide
            if definition.value is None and not isinstance(definition.node, ast.AugAssign):
                return None
            self.visiting.add(key)
            try:
                if isinstance(definition.node, ast.AugAssign):
                    # The target read as a use: the value it had before this statement.
                    update = definition.node
                    kinds.add(self.of(ast.BinOp(update.target, update.op, update.value), depth - 1))
                else:
                    kinds.add(self.of(definition.value, depth - 1))
            finally:
                self.visiting.discard(key)
        return kinds.pop() if len(kinds) == 1 else None


def _is_number(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)


def launched_int(ctx: "FileContext", kernel, extent: ast.expr) -> int | None:
    """The value a ``ct.Constant`` parameter ``extent`` of ``kernel`` has at every launch the
    project shows, when they all pass the same int (``(A, B, C, 64, 64, 32)``, also a name bound
    by tuple unpacking: ``b, m, n, k = 2, 4, 8, 16``); None otherwise."""
    if not isinstance(extent, ast.Name) or extent.id not in kernel.constexpr_names(ctx.qualname):
        return None
    values = set()
    for site in ctx.project.launches_of(kernel, ctx):
        passed = site.launch.bound_arguments().get(extent.id)
        value = _int_at(site.ctx, passed) if passed is not None else None
        if value is None:
            return None
        values.add(value)
    return values.pop() if len(values) == 1 else None


def _int_at(ctx: "FileContext", expr: ast.expr) -> int | None:
    value = ctx.resolve_int(expr)
    if value is not None or not isinstance(expr, ast.Name):
        return value
    definitions = ctx.definitions(expr.id, expr)
    if len(definitions) != 1:
        return None
    statement = definitions[0].node
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target, source = statement.targets[0], statement.value
        if isinstance(target, ast.Tuple) and isinstance(source, ast.Tuple) and len(target.elts) == len(source.elts):
            for name, item in zip(target.elts, source.elts):
                if isinstance(name, ast.Name) and name.id == expr.id:
                    return ctx.resolve_int(item)
    return None


def tile_dtype(ctx: "FileContext", expr: ast.expr) -> str | None:
    """The element type of tile value ``expr`` where the source states it (``"float32"``), else
    None (a tile loaded from an array has the array's dtype)."""
    return _Dtypes(ctx).of(expr)


# --- launch grids --------------------------------------------------------------------------------

@dataclass(frozen=True)
class GridForm:
    """What one value of a ``ct.launch`` grid provably is: ``length`` for a tuple of known
    length, else ``kind`` says what non-tuple it is (``"list"``, ``"int"``, ``"function"``)."""

    node: ast.AST
    kind: str
    length: int | None = None


_INT_BUILTINS = frozenset({"int", "len"})
_INT_FUNCTIONS = frozenset({cutile.CDIV, "math.ceil", "math.floor", "math.prod", "triton.cdiv"})
_INT_OPERATORS = (ast.FloorDiv, ast.Div, ast.Sub, ast.Mod, ast.Pow, ast.LShift, ast.RShift, ast.BitAnd,
                  ast.BitOr, ast.BitXor)


def grid_forms(ctx: "FileContext", grid: ast.expr, depth: int = 6) -> list[GridForm] | None:
    """Every value a launch grid may have, each as a ``GridForm``; None as soon as one of them
    cannot be read (a parameter, a call's result, ``x.shape``)."""
    if depth <= 0:
        return None
    if isinstance(grid, ast.Name):
        forms: list[GridForm] = []
        definitions = reaching_definitions(ctx, grid)
        if not definitions:
            return None
        for definition in definitions:
            if definition.kind == "def":
                forms.append(GridForm(definition.node, "function"))
                continue
            if definition.kind != "assign" or definition.value is None:
                return None
            inner = grid_forms(ctx, definition.value, depth - 1)
            if inner is None:
                return None
            forms += inner
        return forms
    if isinstance(grid, ast.Tuple):
        if any(isinstance(e, ast.Starred) for e in grid.elts):
            return None
        return [GridForm(grid, "tuple", len(grid.elts))]
    if isinstance(grid, ast.BinOp) and isinstance(grid.op, ast.Add):
        left, right = grid_forms(ctx, grid.left, depth - 1), grid_forms(ctx, grid.right, depth - 1)
        if left and right and len(left) == len(right) == 1 and left[0].kind == right[0].kind == "tuple":
            return [GridForm(grid, "tuple", left[0].length + right[0].length)]
        return None
    kind = _non_tuple_kind(ctx, grid)
    return [GridForm(grid, kind)] if kind else None


def _non_tuple_kind(ctx: "FileContext", expr: ast.expr) -> str | None:
    if isinstance(expr, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(expr, ast.Lambda):
        return "function"
    if isinstance(expr, (ast.Set, ast.SetComp)):
        return "set"
    if isinstance(expr, (ast.Dict, ast.DictComp)):
        return "dict"
    if isinstance(expr, ast.GeneratorExp):
        return "generator"
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
        return "int"
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _INT_OPERATORS):
        return "int"
    if isinstance(expr, ast.Call):
        func = expr.func
        if ctx.call_name(expr) in _INT_FUNCTIONS:
            return "int"
        if isinstance(func, ast.Name) and not ctx.definitions(func.id, expr):
            if func.id in _INT_BUILTINS:
                return "int"
            if func.id == "list":
                return "list"
    return None


# --- partial tiles -------------------------------------------------------------------------------

def elementwise_loads(ctx: "FileContext", expr: ast.expr) -> list[ast.Call]:
    """The ``ct.load`` calls whose tile ``expr`` is computed from element by element: through
    names, arithmetic, ``astype`` and the elementwise functions of ``cutile.ELEMENTWISE_FUNCTIONS``,
    so each lane of ``expr`` comes from the same lane of the loaded tile. Any other call stops the
    walk: ``ct.where`` (which is how a kernel masks padding), reshapes, ``ct.mma``, reductions."""
    found: list[ast.Call] = []

    def descend(node: ast.AST) -> bool:
        if isinstance(node, ast.Call):
            name = ctx.call_name(node)
            if name == cutile.LOAD:
                found.append(node)
                return False
            if name in cutile.ELEMENTWISE_FUNCTIONS:
                return True
            return name is None and isinstance(node.func, ast.Attribute) and node.func.attr == "astype"
        return isinstance(node, (ast.Name, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Attribute))

    walk_value(ctx, expr, descend, _DEPTH)
    return found


def reduced_axes(ctx: "FileContext", reduction: ast.Call, rank: int) -> set[int] | None:
    """The axes (counted from the end, ``-1`` the last) that ``reduction`` reduces a tile of
    ``rank`` axes over: all of them for ``axis=None``; None when the axis cannot be read."""
    signature = cutile.SIGNATURES[ctx.call_name(reduction)]
    axis = signature_argument(reduction, signature, "axis")
    if axis is None or (isinstance(axis, ast.Constant) and axis.value is None):
        return set(range(-rank, 0))
    entries = axis.elts if isinstance(axis, ast.Tuple) else [axis]
    axes = set()
    for entry in entries:
        value = ctx.resolve_int(entry)
        if value is None or not -rank <= value < rank:
            return None
        axes.add(value - rank if value >= 0 else value)
    return axes


@dataclass(frozen=True)
class PartialAxis:
    """An axis (counted from the end) along which a ``ct.load`` tile can reach past the array,
    with the source that shows it: ``reason`` says how, ``site`` is where."""

    axis: int
    reason: str
    site: ast.AST


def partial_axes(ctx: "FileContext", load: ast.Call) -> list[PartialAxis]:
    """The axes along which ``load``'s tile provably may extend past the array for some sizes:

    - its index on that axis is the variable of a loop over a rounded-up count of tiles of that
      extent (``for j in range(ct.cdiv(N, TILE))``, ``range(ct.num_tiles(x, axis, shape))``,
      ``(N + TILE - 1) // TILE``): the last tile is partial unless ``N`` is a multiple of ``TILE``;
    - its index on that axis is 0 and the extent is a kernel parameter that every launch of the
      file passes a power-of-two ceiling of a size for (``TILE_N = next_power_of_2(N)``): one
      tile spans the axis and overhangs it unless ``N`` is a power of two.

    Nothing is claimed where the sizes come from elsewhere."""
    signature = cutile.SIGNATURES[cutile.LOAD]
    index = tuple_entries(ctx, signature_argument(load, signature, "index"))
    shape = tuple_entries(ctx, signature_argument(load, signature, "shape"))
    if not index or not shape or len(index) != len(shape):
        return []
    rank = len(shape)
    found = []
    for position, (entry, extent) in enumerate(zip(index, shape)):
        if ctx.resolve_int(extent) == 1:
            continue
        loop = _tile_count_loop(ctx, entry, extent, position, rank)
        if loop is not None:
            found.append(PartialAxis(position - rank, f"`{ast.unparse(loop.iter)}` rounds the tile count up", loop))
            continue
        if ctx.resolve_int(entry) == 0:
            launch_site = _power_of_two_extent(ctx, load, extent)
            if launch_site is not None:
                found.append(PartialAxis(position - rank, f"the launch rounds `{ast.unparse(extent)}` up to a power of "
                                                          f"two of `{ast.unparse(launch_site)}`", launch_site))
    return found


def _same_extent(ctx: "FileContext", a: ast.expr, b: ast.expr) -> bool:
    if ast.dump(a) == ast.dump(b):
        return True
    known = ctx.resolve_int(a)
    return known is not None and known == ctx.resolve_int(b)


def _tile_count_loop(ctx: "FileContext", entry: ast.expr, extent: ast.expr, position: int, rank: int) -> ast.For | None:
    """The ``for`` loop whose variable ``entry`` is, when it runs over a rounded-up count of tiles
    of ``extent`` along axis ``position``."""
    if not isinstance(entry, ast.Name):
        return None
    definitions = reaching_definitions(ctx, entry)
    if len(definitions) != 1:
        return None
    definition = definitions[0]
    if definition.kind == "assign" and isinstance(definition.value, ast.Name):
        return _tile_count_loop(ctx, definition.value, extent, position, rank)
    loop = definition.node
    if definition.kind != "loop" or not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
        return None
    iterator = loop.iter
    if not (isinstance(iterator, ast.Call) and isinstance(iterator.func, ast.Name) and iterator.func.id == "range"
            and 1 <= len(iterator.args) <= 3 and not ctx.definitions("range", iterator)):
        return None
    stop = iterator.args[0] if len(iterator.args) == 1 else iterator.args[1]
    if len(iterator.args) == 3 and ctx.resolve_int(iterator.args[2]) != 1:
        return None
    return loop if any(_rounds_up_count(ctx, value, extent, position, rank) for value in _values(ctx, stop)) else None


def _values(ctx: "FileContext", expr: ast.expr) -> list[ast.expr]:
    values = list(ctx.values_of(expr))
    return [] if any(v is None for v in values) else values


def _rounds_up_count(ctx: "FileContext", value: ast.expr, extent: ast.expr, position: int, rank: int) -> bool:
    """``ct.cdiv(N, extent)``, ``ct.num_tiles(x, axis=position, shape=...)`` or
    ``(N + extent - 1) // extent``."""
    name = ctx.call_name(value) if isinstance(value, ast.Call) else None
    if name == cutile.CDIV:
        divisor = signature_argument(value, cutile.SIGNATURES[cutile.CDIV], "y")
        return divisor is not None and _same_extent(ctx, divisor, extent)
    if name == cutile.NUM_TILES:
        axis = ctx.resolve_int(signature_argument(value, cutile.SIGNATURES[cutile.NUM_TILES], "axis"))
        tile = tuple_entries(ctx, signature_argument(value, cutile.SIGNATURES[cutile.NUM_TILES], "shape"))
        if axis is None or not tile or len(tile) != rank:
            return False
        return axis % rank == position and _same_extent(ctx, tile[position], extent)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.FloorDiv) and _same_extent(ctx, value.right, extent):
        numerator = value.left
        return (isinstance(numerator, ast.BinOp) and isinstance(numerator.op, ast.Sub)
                and ctx.resolve_int(numerator.right) == 1 and isinstance(numerator.left, ast.BinOp)
                and isinstance(numerator.left.op, ast.Add) and _same_extent(ctx, numerator.left.right, extent))
    return False


def _power_of_two_extent(ctx: "FileContext", load: ast.Call, extent: ast.expr) -> ast.expr | None:
    """The size every launch of ``load``'s kernel rounds up to a power of two to pass as the
    kernel parameter ``extent``; None when a launch passes anything else or there is none."""
    if not isinstance(extent, ast.Name):
        return None
    definitions = ctx.definitions(extent.id, extent)
    if len(definitions) != 1 or definitions[0].kind != "param":
        return None
    kernel = ctx.kernel_of(load, "cutile")
    if kernel is None or kernel.node is not ctx.function_of(load):
        return None
    launches = [launch for launch in ctx.launches_of("cutile") if launch.kernel is kernel]
    found = None
    for launch in launches:
        passed = launch.bound_arguments().get(extent.id)
        rounded = power_of_two_ceiling(ctx, passed) if passed is not None else None
        if rounded is None:
            return None
        found = found or rounded
    return found
