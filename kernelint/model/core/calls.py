"""Reading a call's arguments the way Python binds them, so rules never hand-write the
"keyword, else the n-th positional" lookup."""
from __future__ import annotations

import ast


def argument(call: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
    """The expression ``call`` passes for parameter ``name``: the keyword ``name=``, else the
    positional argument at ``position`` (None: keyword-only). A ``*args`` at or before the
    position makes the positional unknowable, so None is returned."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is None or position >= len(call.args):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return None
    return call.args[position]


def signature_argument(call: ast.Call, signature: tuple[str, ...], name: str) -> ast.expr | None:
    """``argument`` with the position taken from a parameter list (``("pointer", "mask", ...)``)."""
    return argument(call, name, signature.index(name) if name in signature else None)


def callee_name(func: ast.expr) -> str | None:
    """The last name of what a call calls: ``copy`` for ``cute.copy`` and for ``copy``; None for
    anything else (a subscript, a call's result)."""
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def argument_passed(function: ast.FunctionDef | ast.AsyncFunctionDef, parameter: ast.arg, call: ast.Call,
                    shift: int = 0) -> tuple[ast.expr | None, bool]:
    """What ``call`` passes for ``parameter`` of ``function``, and whether it is the parameter's
    default (an expression of the callee's file, not the caller's); (None, False) when that
    cannot be read (``*args``, ``**kwargs``). ``shift``: leading parameters the call does not
    pass (1 for ``Fn.apply`` calling ``forward(ctx, ...)``)."""
    for keyword in call.keywords:
        if keyword.arg == parameter.arg:
            return keyword.value, False
        if keyword.arg is None:
            return None, False
    positional = [*function.args.posonlyargs, *function.args.args]
    if parameter in positional:
        index = positional.index(parameter) - shift
        if index < 0:
            return None, False
        for position, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                return None, False
            if position == index:
                return arg, False
        defaults = function.args.defaults
        at = positional.index(parameter) - (len(positional) - len(defaults))
        return (defaults[at], True) if at >= 0 else (None, False)
    kwonly = function.args.kwonlyargs
    if parameter in kwonly:
        default = function.args.kw_defaults[kwonly.index(parameter)]
        return default, default is not None
    return None, False
