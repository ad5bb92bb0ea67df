"""What an ``@triton.autotune(...)`` decorator says beyond its config keys: the argument-name
lists (``key``, ``restore_value``, ``reset_to_zero``), how many configs it benchmarks, and
whether it replaces the default hooks. Answers "which names does the autotuner read or restore"
for the autotune rules; unreadable lists give None, so a rule can stay silent."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.core.values import fold_int

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


@dataclass(frozen=True)
class TunedConfig:
    """One ``triton.Config`` an autotune benchmarks: ``site`` is its call (shared by every config
    a comprehension makes), ``values`` the meta-parameters its dict sets that fold to ints under
    the comprehension variables, ``options`` likewise for ``num_stages``/``num_warps``/... (absent
    when the call leaves them out), ``bound`` the comprehension variables' values."""

    site: ast.Call
    values: dict[str, int]
    options: dict[str, int]
    bound: dict[str, int]


_MAX_CONFIGS = 4096


def tuned_configs(ctx: "FileContext", call: ast.Call) -> tuple[list[TunedConfig], bool] | None:
    """The configs of autotune ``call``: a literal list, comprehensions over literal lists and
    ranges, or concatenations of those, each ``triton.Config({...}, ...)`` evaluated per
    combination of its comprehension variables. The flag is True when a comprehension filter
    (``if ...``) was ignored, so the list may hold configs the autotuner never sees. None when the
    configs cannot be read."""
    configs = signature_argument(call, _SIGNATURE, "configs")
    expanded = _expand(ctx, configs, {}, 0) if configs is not None else None
    if expanded is None:
        return None
    found, filtered = [], False
    for config, bound, was_filtered in expanded:
        filtered = filtered or was_filtered
        tuned = _evaluate(ctx, config, bound)
        if tuned is None:
            return None
        found.append(tuned)
    return found, filtered


def _expand(ctx: "FileContext", expr: ast.expr, bound: dict[str, int], depth: int):
    """[(config call, comprehension variables, filtered)] or None."""
    if depth > 4:
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _expand(ctx, expr.left, bound, depth + 1), _expand(ctx, expr.right, bound, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(expr, ast.ListComp):
        if not _is_config(ctx, expr.elt):
            return None
        environments = [(dict(bound), False)]
        for generator in expr.generators:
            if not isinstance(generator.target, ast.Name):
                return None
            values = _iteration_values(ctx, generator.iter)
            if values is None:
                return None
            environments = [({**env, generator.target.id: v}, filtered or bool(generator.ifs))
                            for env, filtered in environments for v in values]
            if len(environments) > _MAX_CONFIGS:
                return None
        return [(expr.elt, env, filtered) for env, filtered in environments]
    elements = _literal_sequence(ctx, expr)
    if elements is not None:
        if not all(_is_config(ctx, e) for e in elements):
            return None
        return [(e, dict(bound), False) for e in elements]
    values = list(ctx.values_of(expr))
    if len(values) == 1 and values[0] is not None and values[0] is not expr:
        return _expand(ctx, values[0], bound, depth + 1)
    return None


def _is_config(ctx: "FileContext", expr: ast.expr) -> bool:
    return isinstance(expr, ast.Call) and ctx.qualname(expr.func) == triton.CONFIG


def _iteration_values(ctx: "FileContext", iterable: ast.expr) -> list[int] | None:
    elements = _literal_sequence(ctx, iterable)
    if elements is not None:
        values = [ctx.resolve_int(e) for e in elements]
        return None if None in values else values  # type: ignore[return-value]
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range":
        bounds = [ctx.resolve_int(a) for a in iterable.args]
        if iterable.args and None not in bounds and len(range(*bounds)) <= _MAX_CONFIGS:
            return list(range(*bounds))
    return None


def _evaluate(ctx: "FileContext", config: ast.Call, bound: dict[str, int]) -> TunedConfig | None:
    def lookup(name: ast.Name) -> int | None:
        return bound[name.id] if name.id in bound else ctx.resolve_int(name)

    kwargs = signature_argument(config, triton.SIGNATURES[triton.CONFIG], "kwargs")
    if not isinstance(kwargs, ast.Dict):
        return None
    values = {}
    for key, value in zip(kwargs.keys, kwargs.values):
        folded = fold_int(value, lookup) if value is not None else None
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and folded is not None:
            values[key.value] = folded
    options = {}
    for option in ("num_warps", "num_stages", "num_ctas", "maxnreg"):
        expr = signature_argument(config, triton.SIGNATURES[triton.CONFIG], option)
        if expr is None:
            continue
        folded = fold_int(expr, lookup)
        if folded is None:
            return None
        options[option] = folded
    return TunedConfig(config, values, options, bound)
