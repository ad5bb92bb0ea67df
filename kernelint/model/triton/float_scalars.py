"""Plain Python ``float`` values passed to non-constexpr Triton kernel parameters, and where the
kernel does arithmetic with such a parameter as it arrives.

Eager Triton types a Python ``float`` argument as fp32 (``specialize_impl`` in Triton 3.x), but
Inductor, launching the same kernel from inside ``torch.compile``, types it as fp64
(``signature_of`` in ``torch/_inductor/codegen/triton_utils.py``: "Python floats are natively
fp64"; unspecialised float inputs reach the kernel as 0-d fp64 tensors). Arithmetic of an fp32
tile with an fp64 scalar is fp64 in Triton, so the kernel's math changes precision with the way
it is launched. These helpers answer the two facts a rule needs; unknown stays None/empty.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.dsl import triton
from kernelint.model.core.memo import remembered
from kernelint.model.core.reaching import reaching_definitions

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_CAST = triton.TL + "cast"
#: Decorators that keep ``torch.compile`` from tracing into a function: a launch inside runs as
#: in eager mode (an opaque custom op or a graph break), with the argument typed by Triton.
_NOT_TRACED = frozenset({
    "torch.compiler.disable", "torch._dynamo.disable", "torch.library.custom_op",
    "torch._library.custom_ops.custom_op", "torch._dynamo.disallow_in_graph",
})


def python_float(ctx: "FileContext", expr: ast.expr) -> ast.AST | None:
    """The node that shows ``expr`` (a host launch argument) is a Python ``float``: a float
    literal, a name bound only to float literals, or a parameter of the launching function
    annotated ``float`` or defaulting to a float literal. None when not shown."""
    if _float_literal(expr):
        return expr
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and _float_literal(expr.operand):
        return expr
    if not isinstance(expr, ast.Name):
        return None
    definitions = ctx.definitions(expr.id, expr)
    if len(definitions) != 1:
        return None
    node = definitions[0].node
    if isinstance(node, ast.arg):
        if isinstance(node.annotation, ast.Name) and node.annotation.id == "float":
            return node
        default = _default_of(ctx, node)
        return node if default is not None and _float_literal(default) else None
    value = definitions[0].value
    return value if value is not None and _float_literal(value) else None


def not_traced_by_compile(ctx: "FileContext", node: ast.AST) -> bool:
    """True when a function enclosing ``node`` carries a decorator that keeps ``torch.compile``
    from tracing it (``@torch.compiler.disable``, ``@torch.library.custom_op(...)``)."""
    for ancestor in ctx.ancestors(node):
        if not isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in ancestor.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if ctx.qualname(target) in _NOT_TRACED:
                return True
    return False


def _float_literal(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, float)


def _default_of(ctx: "FileContext", param: ast.arg) -> ast.expr | None:
    function = ctx.function_of(param)
    if function is None:
        return None
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    if param in positional:
        offset = len(positional) - len(args.defaults)
        index = positional.index(param)
        return args.defaults[index - offset] if index >= offset else None
    if param in args.kwonlyargs:
        return args.kw_defaults[args.kwonlyargs.index(param)]
    return None


def first_arithmetic_use(ctx: "FileContext", kernel: "Kernel", param: ast.arg) -> ast.BinOp | None:
    """The first arithmetic operation (``+ - * / **``) in ``kernel`` with ``param`` as it arrives
    as an operand; None when the kernel converts it anywhere (``param.to(...)``,
    ``tl.cast(param, ...)``: the explicit form) or never does arithmetic with it."""
    uses = [n for n in _loads_by_name(ctx, kernel).get(param.arg, ()) if _from_parameter(ctx, n, param)]
    found = None
    for use in uses:
        parent = ctx.parent(use)
        if isinstance(parent, ast.Attribute) and parent.attr == "to":
            return None
        if isinstance(parent, ast.Call) and ctx.call_name(parent) == _CAST and parent.args and parent.args[0] is use:
            return None
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            if found is None or (parent.lineno, parent.col_offset) < (found.lineno, found.col_offset):
                found = parent
    return found


def _loads_by_name(ctx: "FileContext", kernel: "Kernel") -> dict[str, list[ast.Name]]:
    """The loads of each name in ``kernel``'s own body, from the file model's names grouped by
    function (no walk of the kernel), however many of its parameters are asked about. A name in
    a function nested in the kernel reads that function's binding, not the parameter's (Triton
    compiles no nested ``def`` or ``lambda`` in a kernel anyway)."""
    def loads() -> dict[str, list[ast.Name]]:
        found: dict[str, list[ast.Name]] = {}
        for node in ctx.nodes_in(kernel.node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                found.setdefault(node.id, []).append(node)
        return found

    return remembered(ctx, "kernel_loads_by_name", kernel.node, loads)


def _from_parameter(ctx: "FileContext", use: ast.Name, param: ast.arg) -> bool:
    definitions = reaching_definitions(ctx, use)
    return len(definitions) == 1 and definitions[0].node is param
