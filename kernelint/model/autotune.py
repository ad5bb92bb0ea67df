"""What an ``@triton.autotune(...)`` decorator says beyond its config keys: the argument-name
lists (``key``, ``restore_value``, ``reset_to_zero``), how many configs it benchmarks, and
whether it replaces the default hooks. Answers "which names does the autotuner read or restore"
for the autotune rules; unreadable lists give None, so a rule can stay silent."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.calls import signature_argument
from kernelint.model.dsl import triton

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_SIGNATURE = triton.SIGNATURES[triton.AUTOTUNE]
#: Arguments that take a list of kernel-argument names.
NAME_LISTS = ("key", "restore_value", "reset_to_zero")


def _literal_sequence(ctx: "FileContext", expr: ast.expr) -> list[ast.expr] | None:
    """The elements of a list/tuple literal ``expr`` is (through one module or local name)."""
    values = list(ctx.values_of(expr))
    if len(values) != 1 or not isinstance(values[0], (ast.List, ast.Tuple)):
        return None
    elements = values[0].elts
    return None if any(isinstance(e, ast.Starred) for e in elements) else list(elements)


def name_list(ctx: "FileContext", call: ast.Call, parameter: str) -> list[ast.Constant] | None:
    """The string entries of ``parameter`` (one of ``NAME_LISTS``), each as its literal node;
    ``[]`` when the argument is absent or None, None when it cannot be read."""
    expr = signature_argument(call, _SIGNATURE, parameter)
    if expr is None or (isinstance(expr, ast.Constant) and expr.value is None):
        return []
    elements = _literal_sequence(ctx, expr)
    if elements is None:
        return None
    names = []
    for element in elements:
        values = list(ctx.values_of(element))
        if len(values) != 1 or not (isinstance(values[0], ast.Constant) and isinstance(values[0].value, str)):
            return None
        names.append(values[0])
    return names


def _iteration_count(ctx: "FileContext", iterable: ast.expr) -> int | None:
    elements = _literal_sequence(ctx, iterable)
    if elements is not None:
        return len(elements)
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range":
        bounds = [ctx.resolve_int(a) for a in iterable.args]
        if iterable.args and None not in bounds:
            return len(range(*bounds))
    return None


def _count(ctx: "FileContext", expr: ast.expr, depth: int = 0) -> int | None:
    if depth > 4:
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _count(ctx, expr.left, depth + 1), _count(ctx, expr.right, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(expr, ast.ListComp):
        if any(generator.ifs for generator in expr.generators):
            return None
        total = 1
        for generator in expr.generators:
            count = _iteration_count(ctx, generator.iter)
            if count is None:
                return None
            total *= count
        return total
    elements = _literal_sequence(ctx, expr)
    if elements is not None:
        return len(elements)
    values = list(ctx.values_of(expr))
    if len(values) == 1 and values[0] is not None and values[0] is not expr:
        return _count(ctx, values[0], depth + 1)
    return None


def config_count(ctx: "FileContext", call: ast.Call) -> int | None:
    """How many configs the autotuner benchmarks: a literal list, a comprehension over literal
    lists or ranges without filters, or a concatenation of those; None when not readable (a
    function builds them, a filter drops some)."""
    configs = signature_argument(call, _SIGNATURE, "configs")
    return None if configs is None else _count(ctx, configs)


def replaces_hooks(call: ast.Call) -> bool:
    """True when the autotune passes its own ``pre_hook``/``post_hook``: those replace the hooks
    that ``restore_value`` and ``reset_to_zero`` install, and may restore buffers themselves."""
    return any(
        signature_argument(call, _SIGNATURE, hook) is not None for hook in ("pre_hook", "post_hook")
    )


def configs_set_pre_hook(ctx: "FileContext", call: ast.Call) -> bool:
    """True when some ``triton.Config`` of the autotune has a ``pre_hook``: it runs before every
    benchmarked launch and may reset buffers or set descriptor block shapes. Configs built by a
    local function are read there; a builder called with ``pre_hook=`` counts as setting one."""
    configs = signature_argument(call, _SIGNATURE, "configs")
    if configs is None:
        return False
    for value in ctx.values_of(configs):
        if value is None:
            continue
        for node in ast.walk(value):
            if not isinstance(node, ast.Call):
                continue
            if ctx.is_call(node, triton.CONFIG):
                if _sets_hook(signature_argument(node, _CONFIG_SIGNATURE, "pre_hook")):
                    return True
                continue
            if any(k.arg == "pre_hook" and _sets_hook(k.value) for k in node.keywords):
                return True
            if _builder_sets_hook(ctx, node):
                return True
    return False


_CONFIG_SIGNATURE = triton.SIGNATURES[triton.CONFIG]


def _sets_hook(expr: ast.expr | None) -> bool:
    return expr is not None and not (isinstance(expr, ast.Constant) and expr.value is None)


def _builder_sets_hook(ctx: "FileContext", call: ast.Call) -> bool:
    """A local config-building function whose ``triton.Config`` calls pass a hook that is not one
    of its own parameters (those are covered by the keyword check on the call)."""
    if not isinstance(call.func, ast.Name):
        return False
    builders = [d.node for d in ctx.definitions(call.func.id, call)
                if isinstance(d.node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if len(builders) != 1:
        return False
    builder = builders[0]
    own = {a.arg for a in [*builder.args.posonlyargs, *builder.args.args, *builder.args.kwonlyargs]}
    for node in ast.walk(builder):
        if ctx.is_call(node, triton.CONFIG):
            hook = signature_argument(node, _CONFIG_SIGNATURE, "pre_hook")
            if _sets_hook(hook) and not (isinstance(hook, ast.Name) and hook.id in own):
                return True
    return False
