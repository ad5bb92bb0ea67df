"""What is fixed while a CuTe DSL function is traced, and what becomes a run-time value.

The CuTe DSL preprocessor rewrites the body of every ``@cute.jit`` / ``@cute.kernel`` function:
an ``if`` becomes a traced ``scf.if`` (both branches are traced) unless its test is wrapped in
``cutlass.const_expr(...)``, and a ``for`` over ``range`` / ``cutlass.range`` becomes a traced
loop whose variable is a run-time integer, while ``cutlass.range_constexpr`` and any other
iterable stay Python loops. Values that stay Python values during tracing: ``Constexpr``
parameters, ``x is None`` tests, ``.element_type`` / ``.memspace``, literals, and the
configuration a kernel class stores on ``self`` in ``__init__``.

This module answers: which kind a loop is, whether an ``if`` test is compile-time only, what
integer a configuration expression (``self.num_regs``, ``cutlass.Int32(256)``,
``32 * len(self.warp_ids)``) folds to, and which Python list or tuple a name holds.
"""
from __future__ import annotations

import ast
import operator
from typing import TYPE_CHECKING

from kernelint.model.dsl.cute import (
    COMPILE_TIME_ATTRIBUTES,
    CONST_EXPR,
    DYNAMIC_RANGE_NAMES,
    INT_WRAPPERS,
    LOW_PRECISION_FLOATS,
    REGISTER_FRAGMENTS,
    STATIC_RANGE_NAMES,
)
from kernelint.model.core.loops import assigned_in
from kernelint.model.core.calls import callee_name
from kernelint.model.core.walk import subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_MAX_DEPTH = 6
_OPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.LShift: operator.lshift,
}


# --- loops ------------------------------------------------------------------------------------


def loop_kind(loop: ast.AST) -> str:
    """``"dynamic"`` for a ``for`` the preprocessor turns into a traced loop (``range``,
    ``cutlass.range``, ``range_dynamic``), ``"static"`` for ``range_constexpr``, ``"python"``
    for any other loop (a ``for`` over a list, ``enumerate``, a ``while``). Matched on the
    spelled name, as the preprocessor matches it: ``from cutlass import range as r`` makes
    ``r(...)`` a Python loop."""
    if not isinstance(loop, ast.For) or not isinstance(loop.iter, ast.Call):
        return "python"
    name = callee_name(loop.iter.func)
    if name in DYNAMIC_RANGE_NAMES:
        return "dynamic"
    if name in STATIC_RANGE_NAMES:
        return "static"
    return "python"


def loop_variables(loop: ast.AST) -> set[str]:
    """Names the loop statement itself binds (none for a ``while``)."""
    target = getattr(loop, "target", None)
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)} if target is not None else set()


def changes_per_iteration(loop: ast.AST, expr: ast.expr) -> bool:
    """``expr`` may differ between iterations of ``loop``: it names the loop variable or a name
    the loop body rebinds."""
    own = loop_variables(loop)
    return any(
        isinstance(n, ast.Name) and (n.id in own or assigned_in(loop, n.id)) for n in ast.walk(expr)
    )


# --- traced code ------------------------------------------------------------------------------


def traced_functions(ctx: "FileContext", depth: int = 3) -> set[int]:
    """Ids of the functions of this file that run while a CuTe DSL kernel is traced: the
    ``@cute.jit`` / ``@cute.kernel`` functions and the plain helpers they call (by name or as
    ``self.method``), up to ``depth`` calls deep. Code outside them is host code."""
    cached = ctx.__dict__.get("_cute_traced_functions")
    if cached is not None:
        return cached
    frontier = [k.node for k in ctx.kernels if k.dsl == "cute"]
    seen = {id(f) for f in frontier}
    for _ in range(depth):
        following = []
        for function in frontier:
            for call in subtree(function):
                if isinstance(call, ast.Call):
                    for helper in ctx.local_functions_called(call):
                        if id(helper) not in seen:
                            seen.add(id(helper))
                            following.append(helper)
        frontier = following
    ctx.__dict__["_cute_traced_functions"] = seen
    return seen


# --- class configuration ----------------------------------------------------------------------


def _class_of(ctx: "FileContext", node: ast.AST) -> ast.ClassDef | None:
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.ClassDef):
            return ancestor
    return None


def single_binding(ctx: "FileContext", expr: ast.expr) -> ast.expr | None:
    """The one expression a local name or a ``self.<attr>`` is bound to, else None."""
    if isinstance(expr, ast.Name):
        definitions = ctx.definitions(expr.id, expr)
        return definitions[0].value if len(definitions) == 1 else None
    if isinstance(expr, ast.Attribute):
        values = self_attribute_values(ctx, expr)
        return values[0] if values is not None and len(values) == 1 else None
    return None


def self_attribute_values(ctx: "FileContext", expr: ast.expr) -> list[ast.expr] | None:
    """Every value the enclosing class assigns to ``self.<attr>`` (``expr`` being that
    attribute), or None when ``expr`` is not such an attribute or some assignment is opaque
    (augmented, unpacked, or made outside the class)."""
    if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"):
        return None
    cls = _class_of(ctx, expr)
    if cls is None:
        return None
    values = _self_attributes(ctx).get(id(cls), {}).get(expr.attr)
    if not values or any(v is None for v in values):
        return None
    return values


def _self_attributes(ctx: "FileContext") -> dict[int, dict[str, list[ast.expr | None]]]:
    """Per class of the file, ``self.<attr>`` -> the value of each assignment to it anywhere in
    the class (None for an augmented or unpacked one), read from the file's assignments once
    (not by walking every class: kernel classes hold most of a CuTe file)."""
    table = ctx.__dict__.get("_cute_self_attributes")
    if table is not None:
        return table
    table = ctx.__dict__["_cute_self_attributes"] = {}
    statements = [*ctx.nodes(ast.Assign), *ctx.nodes(ast.AnnAssign), *ctx.nodes(ast.AugAssign)]
    statements.sort(key=lambda node: (node.lineno, node.col_offset))
    for node in statements:
        classes = [a for a in ctx.ancestors(node) if isinstance(a, ast.ClassDef)]
        if not classes:
            continue
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            for element in ast.walk(target):
                if (isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name)
                        and element.value.id == "self" and isinstance(element.ctx, ast.Store)):
                    plain = target is element and not isinstance(node, ast.AugAssign) and node.value is not None
                    for cls in classes:
                        table.setdefault(id(cls), {}).setdefault(element.attr, []).append(node.value if plain else None)
    return table


# --- integers ---------------------------------------------------------------------------------


def cute_int(ctx: "FileContext", expr: ast.AST | None, depth: int = _MAX_DEPTH) -> int | None:
    """Fold ``expr`` to an int: literals and constants (``ctx.resolve_int``), integer wrappers
    (``cutlass.Int32(n)``), ``len`` of a literal list or tuple, and ``self.<attr>`` when every
    assignment of it in the class folds to the same int."""
    if expr is None or depth <= 0:
        return None
    value = ctx.resolve_int(expr)
    if value is not None:
        return value
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords:
        name = ctx.call_name(expr) or (expr.func.id if isinstance(expr.func, ast.Name) else None)
        if name in INT_WRAPPERS:
            return cute_int(ctx, expr.args[0], depth - 1)
        if name == "len":
            sequence = python_sequence(ctx, expr.args[0], depth - 1)
            return len(sequence.elts) if sequence is not None else None
        return None
    if isinstance(expr, ast.Attribute):
        values = self_attribute_values(ctx, expr)
        if values is None:
            return None
        folded = {cute_int(ctx, v, depth - 1) for v in values}
        return folded.pop() if len(folded) == 1 else None
    if isinstance(expr, ast.Name):
        definitions = ctx.definitions(expr.id, expr)
        if len(definitions) == 1 and definitions[0].value is not None:
            return cute_int(ctx, definitions[0].value, depth - 1)
        return None
    if isinstance(expr, ast.BinOp) and type(expr.op) in _OPS:
        left, right = cute_int(ctx, expr.left, depth - 1), cute_int(ctx, expr.right, depth - 1)
        if left is None or right is None:
            return None
        try:
            return _OPS[type(expr.op)](left, right) if abs(right) < 1 << 16 else None
        except (ZeroDivisionError, ValueError):
            return None
    return None


def python_sequence(ctx: "FileContext", expr: ast.AST, depth: int = _MAX_DEPTH) -> ast.List | ast.Tuple | None:
    """The list or tuple display ``expr`` is bound to: a literal, a name with one binding (local
    or module level), or a ``self.<attr>`` the class sets once; None when unknown."""
    if depth <= 0:
        return None
    if isinstance(expr, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in expr.elts):
        return expr
    if isinstance(expr, ast.Name):
        definitions = ctx.definitions(expr.id, expr)
        if len(definitions) == 1 and definitions[0].value is not None:
            return python_sequence(ctx, definitions[0].value, depth - 1)
        return None
    if isinstance(expr, ast.Attribute):
        values = self_attribute_values(ctx, expr)
        if values is not None and len(values) == 1:
            return python_sequence(ctx, values[0], depth - 1)
    return None


def builds_python_list(ctx: "FileContext", expr: ast.AST, depth: int = _MAX_DEPTH) -> ast.expr | None:
    """The expression that makes ``expr`` a Python list or tuple: a display, a list
    comprehension, ``list(...)`` / ``tuple(...)``, through single-binding names and ``self``
    attributes. None when it cannot be shown."""
    if depth <= 0:
        return None
    if isinstance(expr, (ast.List, ast.Tuple, ast.ListComp)):
        return expr
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("list", "tuple") \
            and not ctx.definitions(expr.func.id, expr):
        return expr
    if isinstance(expr, ast.Name):
        definitions = ctx.definitions(expr.id, expr)
        if len(definitions) == 1 and definitions[0].value is not None:
            return builds_python_list(ctx, definitions[0].value, depth - 1)
        return None
    if isinstance(expr, ast.Attribute):
        values = self_attribute_values(ctx, expr)
        if values is not None and len(values) == 1:
            return builds_python_list(ctx, values[0], depth - 1)
    return None


# --- compile-time tests -----------------------------------------------------------------------


def is_const_expr(ctx: "FileContext", expr: ast.AST) -> bool:
    """``cutlass.const_expr(...)`` (however imported)."""
    return isinstance(expr, ast.Call) and ctx.call_name(expr) == CONST_EXPR


def cute_function(ctx: "FileContext", function: ast.AST) -> "Kernel | None":
    """The ``@cute.jit`` / ``@cute.kernel`` that ``function`` itself is (not one it sits in)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    kernel = ctx.kernel_of(function.args, "cute")  # the arguments' function is `function`
    return kernel if kernel is not None and kernel.node is function else None


def constexpr_parameters(ctx: "FileContext", function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters of ``function`` annotated ``cutlass.Constexpr`` (or ``Constexpr[...]``)."""
    kernel = cute_function(ctx, function)
    return kernel.constexpr_names(ctx.qualname) if kernel is not None else set()


def compile_time_atom(ctx: "FileContext", test: ast.expr, constexprs: set[str]) -> ast.expr | None:
    """When ``test`` is decided while tracing (built only from ``Constexpr`` parameters,
    ``is None`` checks, ``.element_type`` / ``.memspace``, ``cutlass`` names and literals),
    the part that makes it so; None when any part of it may be a run-time value."""
    atoms: list[ast.expr] = []
    if not _static(ctx, test, constexprs, atoms) or not atoms:
        return None
    return atoms[0]


def _static(ctx: "FileContext", node: ast.expr, constexprs: set[str], atoms: list[ast.expr]) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        if node.id in constexprs:
            atoms.append(node)
            return True
        return (ctx.qualname(node) or "").startswith("cutlass.")
    if isinstance(node, ast.Attribute):
        if node.attr in COMPILE_TIME_ATTRIBUTES:
            atoms.append(node)
            return True
        return (ctx.qualname(node) or "").startswith("cutlass.")
    if isinstance(node, ast.Compare):
        if (len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot))
                and any(isinstance(c, ast.Constant) and c.value is None for c in (node.left, *node.comparators))):
            atoms.append(node)  # `is` cannot be overloaded: always a Python bool
            return True
        return all(_static(ctx, part, constexprs, atoms) for part in (node.left, *node.comparators))
    if isinstance(node, ast.BoolOp):
        return all(_static(ctx, value, constexprs, atoms) for value in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _static(ctx, node.operand, constexprs, atoms)
    return False


# --- element types ----------------------------------------------------------------------------


def low_precision_float(ctx: "FileContext", expr: ast.AST | None, depth: int = _MAX_DEPTH) -> str | None:
    """The qualified name (``cutlass.BFloat16`` or ``cutlass.Float16``) that ``expr`` names:
    directly, through a single-binding name, or through a ``self.<attr>`` that the class sets to
    one of them; None otherwise."""
    if expr is None or depth <= 0:
        return None
    qualname = ctx.qualname(expr)
    if qualname in LOW_PRECISION_FLOATS:
        return qualname
    if isinstance(expr, ast.Name):
        definitions = ctx.definitions(expr.id, expr)
        return low_precision_float(ctx, definitions[0].value, depth - 1) if len(definitions) == 1 else None
    values = self_attribute_values(ctx, expr) if isinstance(expr, ast.Attribute) else None
    found = {low_precision_float(ctx, v, depth - 1) for v in values or ()}
    return found.pop() if len(found) == 1 else None


def low_precision_value(ctx: "FileContext", value: ast.AST | None) -> str | None:
    """When ``value`` makes a bf16/fp16 scalar (``cutlass.BFloat16(0.0)``) or register fragment
    (``cute.make_rmem_tensor(shape, cutlass.Float16)``), the element type's qualified name."""
    if not isinstance(value, ast.Call):
        return None
    element_type = low_precision_float(ctx, value.func)
    if element_type is None and ctx.call_name(value) in REGISTER_FRAGMENTS:
        arguments = [*value.args[1:], *(k.value for k in value.keywords if k.arg in ("dtype", "element_type"))]
        element_type = next((t for a in arguments if (t := low_precision_float(ctx, a))), None)
    return element_type
