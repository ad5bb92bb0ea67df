"""Which values inside a Triton kernel are known only at run time.

Triton builds every tensor with a shape fixed at compile time, so shapes must come from
``tl.constexpr`` parameters, literals, ``x.shape`` or expressions of those written inline. A
*run-time origin* is what makes a value unknown to the compiler: a kernel parameter without a
``tl.constexpr`` annotation, a value read from memory (``tl.load``, atomics), a program id/count,
or a name bound in the kernel by a plain assignment. Triton's code generator turns the value of
every plain assignment into a tensor (``B = 16``, ``C = M * 2``, ``L = x.shape[0]`` all lose their
constexpr-ness; checked by compiling with triton 3.9.0), so only ``B: tl.constexpr = 16`` keeps
it. Where the answer is unsure the value is treated as compile-time:
parameters of a ``@triton.jit`` function that is neither launched in the file nor tuned may be
helpers whose callers pass constexprs; autotuned and heuristic keys are set by Triton; loop
variables are opaque.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.dsl import triton
from kernelint.model.core.walk import children

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

#: Calls whose result is never a compile-time constant.
RUNTIME_CALLS = frozenset({triton.LOAD, triton.PROGRAM_ID, triton.NUM_PROGRAMS, *triton.ATOMICS})
#: Statements whose targets Triton turns into tensors (loop variables are left out:
#: ``tl.static_range`` ones are constants).
_PLAIN_ASSIGNMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)


def _launched_or_tuned(ctx: "FileContext", kernel: "Kernel") -> bool:
    """True when ``kernel`` is an entry point: launched in this file, or autotuned/heuristic."""
    if kernel.autotune is not None or kernel.heuristic_keys:
        return True
    return any(launch.kernel is kernel for launch in ctx.launches_of("triton"))


def runtime_origin(ctx: "FileContext", kernel: "Kernel", expr: ast.AST) -> ast.AST | None:
    """The first run-time origin (see module doc) ``expr`` is computed from, or None."""
    runtime_params = None
    stack: list[ast.AST] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and ctx.call_name(node) in RUNTIME_CALLS:
            return node
        if isinstance(node, ast.Attribute):
            continue  # x.shape, x.dtype, x.T: compile-time facts of a tensor
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for definition in ctx.definitions(node.id, node):
                if not _inside(kernel, definition.node):
                    continue  # module constants and decorator comprehensions: not kernel locals
                if definition.kind == "param":
                    if runtime_params is None:
                        runtime_params = _runtime_params(ctx, kernel)
                    if node.id in runtime_params:
                        return node
                elif isinstance(definition.node, _PLAIN_ASSIGNMENTS) and not _constexpr_binding(ctx, definition.node):
                    return node
            continue
        stack.extend(children(node))
    return None


def _inside(kernel: "Kernel", node: ast.AST) -> bool:
    """True for the kernel's parameters and the statements of its body (not its decorators)."""
    if isinstance(node, ast.arg):
        return node in kernel.params
    body = kernel.node.body
    start, end = (body[0].lineno, body[0].col_offset), (body[-1].end_lineno, body[-1].end_col_offset)
    return start <= (getattr(node, "lineno", 0), getattr(node, "col_offset", 0)) <= end


def _constexpr_binding(ctx: "FileContext", statement: ast.AST) -> bool:
    """``B: tl.constexpr = ...``: the one local binding that stays a compile-time constant."""
    return isinstance(statement, ast.AnnAssign) and ctx.qualname(statement.annotation) in triton.CONSTEXPR_ANNOTATIONS


def _runtime_params(ctx: "FileContext", kernel: "Kernel") -> set[str]:
    if not _launched_or_tuned(ctx, kernel):
        return set()
    constexprs = kernel.constexpr_names(ctx.qualname)
    return {p.arg for p in kernel.params} - constexprs - kernel.tuned_names()
