"""Names a function first binds inside a ``for`` loop and reads after the loop.

Such a name is undefined after the loop when the loop runs zero times. Plain Python raises
``UnboundLocalError`` only then, at run time; cuTile 1.1.0 and later refuse the kernel while
type-checking it (``TypeCheckingError: Use of potentially undefined variable``), whatever the
trip count (cutile-python CHANGELOG 1.1.0; measured with cuda-tile 1.7.0: a constant ``range(4)``
and the loop variable itself are refused too).

The reading is positional and conservative: a name counts as bound before the loop when any
binding of it (a parameter, an assignment on any branch, an import) comes earlier in the
function's text, and a read after the loop is left alone when any binding of the name comes
between the loop and the read. Loops over ``ct.static_iter(...)`` are unrolled at compile time and
are skipped.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from kernelint.model.core.values import bindings


@dataclass(frozen=True)
class LoopOnlyName:
    """A name first bound in ``loop`` and read at ``read`` after it."""

    name: str
    loop: ast.For
    read: ast.Name


def _binding_lines(function: ast.FunctionDef) -> dict[str, list[int]]:
    """Name -> the lines where the function binds it (parameters at the ``def`` line)."""
    lines: dict[str, list[int]] = {}
    for node in ast.walk(function):
        if node is not function and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                lines.setdefault((alias.asname or alias.name).split(".")[0], []).append(node.lineno)
            continue
        for name, _ in bindings(node):
            lines.setdefault(name, []).append(getattr(node, "lineno", function.lineno))
    for arg in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs):
        lines.setdefault(arg.arg, []).append(function.lineno)
    return lines


def _static(loop: ast.For) -> bool:
    call = loop.iter
    if not isinstance(call, ast.Call):
        return False
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name == "static_iter"


def loop_only_names(function: ast.FunctionDef) -> list[LoopOnlyName]:
    """Each name first bound inside a (non-static) ``for`` loop of ``function`` and read after it
    with no binding in between, at its first such read."""
    lines = _binding_lines(function)
    reads = sorted((n for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)),
                   key=lambda n: (n.lineno, n.col_offset))
    found: list[LoopOnlyName] = []
    seen: set[str] = set()
    for loop in sorted((n for n in ast.walk(function) if isinstance(n, ast.For)), key=lambda n: n.lineno):
        if _static(loop):
            continue
        inside = {name for node in ast.walk(loop) for name, _ in bindings(node)
                  if not isinstance(node, (ast.FunctionDef, ast.Lambda))}
        for name in sorted(inside - seen):
            if any(line < loop.lineno for line in lines.get(name, ())):
                continue
            after = next((r for r in reads if r.id == name and r.lineno > loop.end_lineno), None)
            if after is None or any(loop.end_lineno < line <= after.lineno for line in lines.get(name, ())):
                continue
            found.append(LoopOnlyName(name, loop, after))
            seen.add(name)
    return found
