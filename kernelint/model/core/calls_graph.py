"""Calls between the functions of one file: who calls a ``@triton.jit`` helper, and what each
call passes for each of its parameters.

Kernel code factors work into helpers (``gelu(x)``, ``_cdf(v)``); inside a helper a parameter
is opaque, but the callers in the same file say what it holds. ``arguments_for`` gives, for one
parameter, the expression every call site passes (the default where a call omits it), so an
analysis can evaluate a parameter as "one of these" (``dtypes.precision_of`` does). A helper
that is never called in the file, or called with ``*args``/``**kwargs``, gives no answer.

A Triton function under a decorator that is not Triton's (``@pointwise_dynamic(...)`` above
``@triton.jit``) is not called from this file at all: the decorator generates the kernel that
loads elements of the caller's tensors and passes them in. ``generated_elementwise`` names
those functions; their tensor parameters hold loaded values of whatever dtype the caller's
tensors have.
"""
from __future__ import annotations

import ast
from collections import defaultdict
from typing import TYPE_CHECKING

from kernelint.model.core.calls import argument
from kernelint.model.dsl import KERNEL_DECORATORS, triton
from kernelint.model.core.walk import subtree
from kernelint.model.core.memo import kept_on

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

#: Decorators that do not generate a kernel around the function they wrap.
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "functools.wraps", "functools.cache",
                               "functools.lru_cache", "typing.overload"})

_MEMORY_CALLS = frozenset({triton.LOAD, triton.STORE, *triton.ATOMICS})



def call_sites(ctx: "FileContext", function: _FunctionNode) -> list[ast.Call]:
    """The calls in this file that may call ``function`` (by its name; methods by
    ``self.name``/``cls.name``). Indexed once per file."""
    index = kept_on(ctx, "call_sites").get(None)
    if index is None:
        index = defaultdict(list)
        for call in ctx.nodes(ast.Call):
            for callee in ctx.local_functions_called(call):
                index[id(callee)].append(call)
        kept_on(ctx, "call_sites")[None] = index
    return index.get(id(function), [])


def arguments_for(ctx: "FileContext", parameter: ast.arg) -> list[ast.expr] | None:
    """What every call site in the file passes for ``parameter`` of the function that declares
    it (its default where a call leaves it out); None when there is no call site, a call site
    cannot be bound (``*args``, ``**kwargs``, missing argument without default), or the function
    is reached some other way (a decorator that wraps it)."""
    function = ctx.parent(ctx.parent(parameter))
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or generated_elementwise(ctx, function):
        return None
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    if parameter in args.kwonlyargs:
        position = None
    elif parameter in positional:
        position = positional.index(parameter)
    else:
        return None
    if args.vararg is not None and position is not None:
        return None
    if isinstance(ctx.parent(function), ast.ClassDef) and positional and positional[0].arg in ("self", "cls"):
        if position == 0:
            return None
        position = position - 1 if position is not None else None
    default = _defaults(function).get(parameter.arg)
    sites = call_sites(ctx, function)
    if not sites:
        return None
    found = []
    for call in sites:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        value = argument(call, parameter.arg, position)
        if value is None:
            value = default
        if value is None:
            return None
        found.append(value)
    return found


def _defaults(function: _FunctionNode) -> dict[str, ast.expr]:
    """Parameter name -> its default expression."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return defaults


def generated_elementwise(ctx: "FileContext", function: _FunctionNode) -> bool:
    """``function`` is an elementwise kernel-language function (it returns a value and reads and
    writes no memory itself) wrapped by a decorator that is neither a kernel decorator of any
    DSL nor a plain Python one, written above the kernel decorator: a kernel generator (FlagGems'
    ``@pointwise_dynamic``) that calls it with loaded tensor elements. Launch wrappers around
    ordinary kernels (which load and store through pointers) are not generators. Decided once
    per function: every question about a helper's parameters asks it."""
    answers = ctx.__dict__.setdefault("_generated_elementwise", {})
    if id(function) not in answers:
        answers[id(function)] = _generated_elementwise(ctx, function)
    return answers[id(function)]


def _generated_elementwise(ctx: "FileContext", function: _FunctionNode) -> bool:
    if not any(isinstance(n, ast.Return) and n.value is not None for n in subtree(function)):
        return False
    if any(ctx.call_name(n) in _MEMORY_CALLS for n in subtree(function) if isinstance(n, ast.Call)):
        return False
    seen_kernel_decorator = False
    wrapped = False
    for decorator in reversed(function.decorator_list):
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = ctx.qualname(target) or (target.id if isinstance(target, ast.Name) else None)
        if name in KERNEL_DECORATORS:
            seen_kernel_decorator = True
        elif seen_kernel_decorator and name not in _PLAIN_DECORATORS:
            wrapped = True
    return wrapped


def scalar_positions(ctx: "FileContext", function: _FunctionNode) -> set[int]:
    """Positions of the parameters a kernel-generating decorator declares as plain scalars
    (``is_tensor=[True, False]``): they are not loaded tensor elements."""
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call):
            flags = argument(decorator, "is_tensor")
            if isinstance(flags, (ast.List, ast.Tuple)):
                return {
                    i for i, flag in enumerate(flags.elts)
                    if isinstance(flag, ast.Constant) and flag.value is False
                }
    return set()
