"""A kernel launch site, in any of the three DSLs' launch forms."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.dsl import triton
from kernelint.model.kernels import Kernel

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


def launched_kernel_expr(ctx: "FileContext", expr: ast.expr) -> ast.expr:
    """The kernel ``k[grid](...)`` launches: ``expr`` itself, or ``k`` of
    ``torch.library.wrap_triton(k)[grid](...)``."""
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords \
            and ctx.qualname(expr.func) in triton.KERNEL_WRAPPERS:
        return expr.args[0]
    return expr


@dataclass
class Launch:
    """A kernel launch site. ``style`` is ``"subscript"`` (``k[grid](...)``), ``"cutile"``
    (``ct.launch(stream, grid, k, args)``) or ``"cute"`` (``k(...).launch(grid=...)``)."""

    node: ast.Call
    style: str
    kernel_expr: ast.expr
    kernel: Kernel | None
    grid: ast.expr | None
    args: list[ast.expr]
    keywords: dict[str, ast.expr]
    #: The model of the file that defines the kernel, when another module does (an imported
    #: kernel); None when it is the launching file's own.
    kernel_ctx: "FileContext | None" = None

    def bound_arguments(self) -> dict[str, ast.expr]:
        """Kernel parameter name -> the argument the launch passes for it: positional arguments
        matched to the kernel's parameters (up to a ``*args``), then keywords."""
        bound: dict[str, ast.expr] = {}
        if self.kernel is not None:
            params = self.kernel.params
            if params and params[0].arg in ("self", "cls") and isinstance(self.kernel_expr, ast.Attribute):
                params = params[1:]  # a bound method: `self.kernel(a, b)` binds a to the next parameter
            for param, argument in zip(params, self.args):
                if isinstance(argument, ast.Starred):
                    break
                bound[param.arg] = argument
        bound.update(self.keywords)
        return bound
