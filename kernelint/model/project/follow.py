"""Following a host value across functions: the part of every host fact that is not about the
fact itself.

A kernel argument's dtype (``host.py``) and its size (``shapes.py``) are both found by reading
the expression that makes the value, and both need the same steps when that expression is a
parameter or a call: a parameter holds what the call being evaluated binds to it (its default
included), or else what every caller in the project passes, a bounded number of caller frames
up; a call of a project function gives what the function returns, read with its parameters bound
to the call's arguments. ``ValueFollower`` does those steps once for all evaluators; an evaluator
reads the expressions (``evaluate(ctx, expr, frames)``) and joins the answers its own way (a
union of dtypes, the maximum of sizes). Never imports or runs anything; callers are found through
the recording ``ProjectView``, so every file read is a recorded fact.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, TypeVar

from kernelint.model.core.calls import argument_passed
from kernelint.model.core.memo import kept_on

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.project.view import ProjectView, Site

T = TypeVar("T")
#: ``evaluate(ctx, expr, frames)``: what an evaluator makes of one expression.
Evaluate = Callable[["FileContext", ast.expr, int], T]

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
#: One list of callers per view and function: searching the importers is the costly step.


class ValueFollower:
    """The parameters bound by the call being evaluated, and the budget of one question."""

    def __init__(self, view: "ProjectView | None", budget: int):
        self.view = view
        self.budget = budget
        #: id(parameter) -> (file model, expression) bound by the call being evaluated.
        self.bound: dict[int, tuple["FileContext", ast.expr]] = {}

    def spend(self) -> bool:
        """Take one step of the budget; False once it is spent (pathological code)."""
        if self.budget <= 0:
            return False
        self.budget -= 1
        return True

    def callers(self, function: ast.FunctionDef | ast.AsyncFunctionDef, ctx: "FileContext") -> list["Site"]:
        """``view.callers_of(function)``, once per view and function."""
        if self.view is None:
            return []
        per_view = kept_on(self.view, "callers")
        key = id(function)
        if key not in per_view:
            per_view[key] = self.view.callers_of(function, ctx)
        return per_view[key]

    def parameter(self, ctx: "FileContext", parameter: ast.arg, frames: int, evaluate: Evaluate,
                  max_callers: int | None = None) -> list[T | None] | None:
        """What ``evaluate`` gives for what ``parameter`` holds: the expression the call being
        evaluated binds (one answer), else what each caller passes (one answer per caller,
        None where a caller passes nothing that can be read), ``frames`` callers up. None when
        the parameter cannot be followed: not a host function's, no frame left, no caller
        found, or more callers than ``max_callers``."""
        bound = self.bound.get(id(parameter))
        if bound is not None:
            return [evaluate(bound[0], bound[1], frames)]
        function = ctx.parent(ctx.parent(parameter))
        if frames <= 0 or not isinstance(function, _FUNCTIONS) or ctx.kernel_of(parameter) is not None:
            return None
        sites = self.callers(function, ctx)
        if not sites or (max_callers is not None and len(sites) > max_callers):
            return None
        found: list[T | None] = []
        for site in sites:
            passed, is_default = argument_passed(function, parameter, site.node, site.shift)
            found.append(evaluate(ctx if is_default else site.ctx, passed, frames - 1) if passed is not None else None)
        return found

    def function_called(self, ctx: "FileContext", call: ast.Call):
        """The one host function of the project ``call`` calls, with the model of its file; None
        for anything else (a method, a library function, a kernel)."""
        if not isinstance(call.func, (ast.Name, ast.Attribute)):
            return None
        functions = ctx.local_functions_called(call) if isinstance(call.func, ast.Name) else []
        target_ctx = ctx
        if not functions and self.view is not None:
            dotted = self.view.absolute(ctx, call.func)
            resolved = self.view.function_named(dotted) if dotted else None
            if resolved is not None:
                functions, target_ctx = [resolved[0]], resolved[1]
        if len(functions) != 1 or target_ctx.kernel_of(functions[0].body[0]) is not None:
            return None
        return functions[0], target_ctx

    def returned(self, ctx: "FileContext", call: ast.Call, frames: int, evaluate: Evaluate) -> list[T] | None:
        """What ``evaluate`` gives for each value the project function ``call`` calls returns,
        its parameters bound to the call's arguments (defaults in the callee's file); None when
        the call is not of such a function, it returns nothing, or no frame is left."""
        if frames <= 0:
            return None
        called = self.function_called(ctx, call)
        if called is None:
            return None
        function, target_ctx = called
        returns = [n.value for n in ast.walk(function) if isinstance(n, ast.Return) and n.value is not None
                   and target_ctx.function_of(n) is function]
        if not returns:
            return None
        saved = dict(self.bound)
        for param in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]:
            passed, is_default = argument_passed(function, param, call, 0)
            if passed is not None:
                self.bound[id(param)] = (target_ctx if is_default else ctx, passed)
        try:
            return [evaluate(target_ctx, value, frames - 1) for value in returns]
        finally:
            self.bound = saved
