"""Which values inside a Triton kernel are tensors (traced values, as opposed to the Python and
constexpr values the compiler folds), and which tensors are blocks: tensors of more than one
element, as opposed to scalars (``tl.program_id``, a runtime argument, a reduction to one value).

A value is a block when it is computed, through names and shape-keeping operations, from a
``tl.arange``, a ``tl.zeros``/``tl.full`` of a literal non-empty shape, or a block pointer. The
walk stops at anything whose shape it cannot vouch for: reductions (``tl.sum(x)`` is a scalar,
``tl.sum(x, axis=1)`` may not be), calls of helper functions, attributes (``x.shape[0]``) and
parameters, except a jit helper's parameter for which every caller in the file passes a block.
So "not a block" means "not shown to be one", never "a scalar".
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core import calls_graph
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.core.reaching import reaching_definitions, walk_value
from kernelint.model.core.walk import parent

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_MAX_DEPTH = 8
_SHAPED_CONSTRUCTORS = frozenset({triton.ZEROS, triton.FULL})
_PASS_THROUGH = (ast.Name, ast.BinOp, ast.Compare, ast.UnaryOp, ast.BoolOp, ast.IfExp, ast.Subscript,
                 ast.Slice, ast.Tuple, ast.keyword)


def block_origin(ctx: "FileContext", expr: ast.AST, _depth: int = 0) -> ast.AST | None:
    """The node that makes kernel value ``expr`` a block (its ``tl.arange``, ``tl.zeros`` or
    ``tl.make_block_ptr``, also through the arguments every caller of a ``@triton.jit`` helper
    passes for its parameters), or None when the value is not shown to be one."""
    found: list[ast.AST] = []

    def descend(node: ast.AST) -> bool:
        if found:
            return False
        if isinstance(node, ast.Call):
            name = ctx.call_name(node)
            if name in (triton.ARANGE, triton.MAKE_BLOCK_PTR) or (
                    name in _SHAPED_CONSTRUCTORS and _literal_nonempty_shape(node, name)):
                found.append(node)
                return False
            if name in triton.SHAPE_PRESERVING:
                return True
            return name is None and _shape_preserving_method(node)
        if isinstance(node, ast.Attribute):
            owner = parent(node)
            return isinstance(owner, ast.Call) and owner.func is node and _shape_preserving_method(owner)
        return isinstance(node, _PASS_THROUGH)

    walk_value(ctx, expr, descend, _MAX_DEPTH)
    if not found and _depth < _MAX_HELPER_DEPTH:
        found.extend(_block_through_parameters(ctx, expr, _depth))
    return found[0] if found else None


#: Helper calls followed from a parameter to the arguments its callers pass.
_MAX_HELPER_DEPTH = 2


def _block_through_parameters(ctx: "FileContext", expr: ast.AST, depth: int) -> list[ast.AST]:
    """A block a ``@triton.jit`` helper's parameter receives: every call site in the file passes
    one for it (``_keep(offs, lo, hi)`` called with ``offs = ... + tl.arange(...)``)."""
    found: list[ast.AST] = []

    def descend(node: ast.AST) -> bool:
        if found or isinstance(node, (ast.Call, ast.Attribute)):
            return False
        if isinstance(node, ast.Name):
            for definition in reaching_definitions(ctx, node):
                parameter = definition.node
                if not isinstance(parameter, ast.arg) or ctx.kernel_of(parameter, "triton") is None:
                    continue
                passed = calls_graph.arguments_for(ctx, parameter)
                origins = [block_origin(ctx, value, depth + 1) for value in passed] if passed else []
                if origins and all(o is not None for o in origins):
                    found.append(origins[0])
                    return False
        return isinstance(node, _PASS_THROUGH)

    walk_value(ctx, expr, descend, _MAX_DEPTH)
    return found


def _shape_preserving_method(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr in triton.SHAPE_PRESERVING_METHODS


def _literal_nonempty_shape(call: ast.Call, name: str) -> bool:
    shape = signature_argument(call, triton.SIGNATURES[name], "shape")
    return isinstance(shape, (ast.List, ast.Tuple)) and len(shape.elts) > 0


_TENSOR_SOURCES = frozenset({triton.PROGRAM_ID, triton.NUM_PROGRAMS, triton.LOAD, triton.ARANGE, triton.ZEROS,
                             triton.FULL, triton.DOT, triton.MAKE_BLOCK_PTR, *triton.REDUCTIONS})


def tensor_origin(ctx: "FileContext", expr: ast.AST) -> ast.AST | None:
    """The node that makes kernel value ``expr`` a traced tensor, scalar or block: a
    ``tl.program_id``, ``tl.load``, ``tl.arange``, constructor or reduction it is computed from, or
    a runtime (not ``tl.constexpr``) parameter of the Triton kernel it reads. None when it is not
    shown to be one (constexprs, literals, a helper's parameters)."""
    found: list[ast.AST] = []

    def descend(node: ast.AST) -> bool:
        if found:
            return False
        if isinstance(node, ast.Call):
            name = ctx.call_name(node)
            if name in _TENSOR_SOURCES:
                found.append(node)
                return False
            return name in triton.SHAPE_PRESERVING or (name is None and _shape_preserving_method(node))
        if isinstance(node, ast.Name):
            runtime = next((d.node for d in reaching_definitions(ctx, node) if _runtime_parameter(ctx, d.node)), None)
            if runtime is not None:
                found.append(runtime)
                return False
            return True
        if isinstance(node, ast.Attribute):
            owner = parent(node)
            return isinstance(owner, ast.Call) and owner.func is node and _shape_preserving_method(owner)
        return isinstance(node, _PASS_THROUGH)

    walk_value(ctx, expr, descend, _MAX_DEPTH)
    return found[0] if found else None


def _runtime_parameter(ctx: "FileContext", node: ast.AST) -> bool:
    """A parameter of a Triton kernel that nothing in the file calls (an entry point, launched from
    the host) and that is not ``tl.constexpr``. A helper's unannotated parameter may be given a
    constexpr by its caller, so it is not one."""
    if not isinstance(node, ast.arg):
        return False
    kernel = ctx.kernel_of(node, "triton")
    if kernel is None or not any(p is node for p in kernel.params) or kernel.is_constexpr(node, ctx.qualname):
        return False
    return not calls_graph.call_sites(ctx, kernel.node)
