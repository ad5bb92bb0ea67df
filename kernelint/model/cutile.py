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
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model import calls_graph
from kernelint.model.calls import argument, signature_argument
from kernelint.model.dataflow import reaches
from kernelint.model.dsl import cutile
from kernelint.model.reaching import reaching_definitions, value_at

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_DEPTH = 12
_tile_functions: "weakref.WeakKeyDictionary[FileContext, dict[int, ast.AST]]" = weakref.WeakKeyDictionary()


# --- tile code -----------------------------------------------------------------------------------

def tile_functions(ctx: "FileContext") -> dict[int, ast.AST]:
    """``id(node) -> node`` of every function of the file that runs as cuTile tile code."""
    found = _tile_functions.get(ctx)
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
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                pending += ctx.local_functions_called(node)
    _tile_functions[ctx] = found
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
        if name is None and isinstance(func, ast.Attribute) and func.attr in cutile.TILE_METHODS:
            return self.of(func.value, depth - 1)
        return None

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
