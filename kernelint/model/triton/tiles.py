"""Compile-time sizes inside Triton kernels: the ints a size expression takes, and the lengths of
the ``tl.arange`` vectors that span each axis of a tile.

A size written in the kernel (``tl.arange(0, 48)``, ``BLOCK: tl.constexpr = 48``) has one
value. A size that is a ``tl.constexpr`` parameter takes, per launch of the kernel in this file,
the value that launch passes (or the parameter's default); ``int_values`` evaluates the size
once per launch and says where each value was set, so a rule can report the launch argument
that picks a bad size. Launches whose arguments do not fold to ints are left out: the answer
covers only what the file fixes.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core import calls_graph
from kernelint.model.core.calls import signature_argument
from kernelint.model.core.dataflow import broadcast_operand, load_of, reaches
from kernelint.model.dsl import triton
from kernelint.model.core.values import fold_int
from kernelint.model.core.memo import remembered

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_DEPTH = 8


@dataclass(frozen=True)
class SizeValue:
    """One value of a size. ``site`` is the node that fixes it: the size expression itself, or
    the launch argument (or parameter default) that sets a constexpr it depends on."""

    value: int
    site: ast.AST


def int_values(ctx: "FileContext", expr: ast.expr, at: ast.AST | None = None, *,
               configs: bool = False) -> list[SizeValue]:
    """The ints ``expr`` (inside a Triton kernel; ``at``: the node whose kernel to use, default
    ``expr``) takes: one when the kernel fixes it, else one per launch in this file that fixes
    the constexpr parameters it reads. With ``configs``, a parameter the kernel's
    ``@triton.autotune`` sets takes the value of each config that is a literal
    ``triton.Config({...})`` (``site``: that config's value)."""
    fixed = ctx.resolve_int(expr)
    if fixed is not None:
        return [SizeValue(fixed, at or expr)]
    kernel = ctx.kernel_of(at or expr, "triton")
    if kernel is None:
        return []
    constexprs = kernel.constexpr_names(ctx.qualname)
    read = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} & constexprs
    if not read:
        read = _constexprs_behind(ctx, expr, constexprs)
    if not read:
        return []
    found = []
    environments = _tuned_environments(ctx, kernel, read) if configs else _launch_environments(ctx, kernel, read)
    for env, sites in environments:
        value = _fold(ctx, expr, env)
        if value is not None:
            found.append(SizeValue(value, sites[sorted(read)[0]]))
    return found


def _constexprs_behind(ctx: "FileContext", expr: ast.expr, constexprs: set[str]) -> set[str]:
    """Constexpr parameters a size reads through names assigned in the kernel."""
    read: set[str] = set()

    def match(node: ast.AST) -> bool:
        if isinstance(node, ast.Name) and node.id in constexprs:
            read.add(node.id)
        return False

    reaches(ctx, expr, match)
    return read


def _launch_environments(ctx: "FileContext", kernel: "Kernel", names: set[str], depth: int = 2):
    """(name -> int, name -> site) for each launch of ``kernel`` that fixes every name: its
    launches anywhere in the project (``ctx.project``), or, for a ``@triton.jit`` helper no one
    launches, the calls of the kernels of this file that call it (``depth`` helpers up)."""
    defaults = kernel.defaults()
    sites = ctx.project.launches_of(kernel, ctx)
    for site in sites:
        bound = site.launch.bound_arguments()
        env, where = {}, {}
        for name in names:
            argument = bound.get(name)
            value = site.ctx.resolve_int(argument) if argument is not None else None
            if argument is None and name in defaults:
                argument, value = defaults[name], ctx.resolve_int(defaults[name])
            if value is None:
                break
            env[name], where[name] = value, argument
        else:
            yield env, where
    callers = _helper_calls(ctx, kernel) if not sites and depth > 0 else []
    for call, caller in callers:
        yield from _call_environments(ctx, kernel, call, caller, names, defaults, depth)
    if not sites and not callers and kernel.autotune is None and names <= set(defaults):
        env = {name: ctx.resolve_int(defaults[name]) for name in names}
        if all(v is not None for v in env.values()):
            yield env, {name: defaults[name] for name in names}


def _helper_calls(ctx: "FileContext", helper: "Kernel") -> list[tuple[ast.Call, "Kernel"]]:
    """The calls of ``helper`` inside other Triton functions of this file, with their caller."""
    found = []
    for call in calls_graph.call_sites(ctx, helper.node):
        caller = ctx.kernel_of(call, "triton")
        if caller is not None and caller is not helper:
            found.append((call, caller))
    return found


def _call_environments(ctx: "FileContext", helper: "Kernel", call: ast.Call, caller: "Kernel",
                       names: set[str], defaults: dict, depth: int):
    """The environments one helper call gives ``names``: each argument's values in the caller,
    every name fixed (one combination per environment of the caller)."""
    parameters = {p.arg: p for p in helper.params}
    passed = {}
    for name in names:
        parameter = parameters.get(name)
        arguments = calls_graph.arguments_for(ctx, parameter) if parameter is not None else None
        argument = _argument_at(call, helper, name) or defaults.get(name)
        if arguments is None or argument is None:
            return
        passed[name] = argument
    caller_constexprs = caller.constexpr_names(ctx.qualname)
    read = {n.id for a in passed.values() for n in ast.walk(a) if isinstance(n, ast.Name)} & caller_constexprs
    fixed = {name: ctx.resolve_int(argument) for name, argument in passed.items()}
    if all(v is not None for v in fixed.values()):
        yield fixed, dict(passed)
        return
    if not read:
        return
    for env, where in _launch_environments(ctx, caller, read, depth - 1):
        values = {name: _fold(ctx, argument, env) for name, argument in passed.items()}
        if all(v is not None for v in values.values()):
            yield values, {name: where[sorted(read)[0]] for name in names}


def _argument_at(call: ast.Call, helper: "Kernel", name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    positions = [p.arg for p in helper.params]
    index = positions.index(name) if name in positions else -1
    if 0 <= index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return call.args[index]
    return None


def _tuned_environments(ctx: "FileContext", kernel: "Kernel", names: set[str]):
    """``_launch_environments``, with the names an autotune sets taken from each of its literal
    configs (every config must fold, or the tuned names give nothing)."""
    tuned = names & kernel.autotune.config_keys if kernel.autotune is not None else set()
    if not tuned:
        yield from _launch_environments(ctx, kernel, names)
        return
    config_envs = _config_environments(ctx, kernel, tuned)
    rest = names - tuned
    launch_envs = list(_launch_environments(ctx, kernel, rest)) if rest else [({}, {})]
    for config_env, config_sites in config_envs:
        for launch_env, launch_sites in launch_envs:
            yield {**launch_env, **config_env}, {**launch_sites, **config_sites}


def _config_environments(ctx: "FileContext", kernel: "Kernel", names: set[str]) -> list[tuple[dict, dict]]:
    """(name -> int, name -> site) per ``triton.Config({...})`` of the kernel's autotune, when the
    configs are a literal list (directly or through one name) of configs whose dicts fold."""
    configs = signature_argument(kernel.autotune.node, triton.SIGNATURES[triton.AUTOTUNE], "configs")
    values = list(ctx.values_of(configs)) if configs is not None else []
    if len(values) != 1 or not isinstance(values[0], (ast.List, ast.Tuple)):
        return []
    environments = []
    for element in values[0].elts:
        if not (isinstance(element, ast.Call) and ctx.qualname(element.func) == triton.CONFIG):
            return []
        kwargs = signature_argument(element, triton.SIGNATURES[triton.CONFIG], "kwargs")
        if not isinstance(kwargs, ast.Dict):
            return []
        entries = {key.value: value for key, value in zip(kwargs.keys, kwargs.values)
                   if isinstance(key, ast.Constant) and isinstance(key.value, str)}
        env, sites = {}, {}
        for name in names:
            value = ctx.resolve_int(entries[name]) if name in entries else None
            if value is None:
                return []
            env[name], sites[name] = value, entries[name]
        environments.append((env, sites))
    return environments


def _fold(ctx: "FileContext", expr: ast.expr, env: dict[str, int], depth: int = _DEPTH) -> int | None:
    def lookup(name: ast.Name) -> int | None:
        if name.id in env:
            return env[name.id]
        if depth <= 0:
            return None
        definitions = ctx.definitions(name.id, name)
        if len(definitions) != 1 or definitions[0].value is None:
            return ctx.resolve_int(name)
        return _fold(ctx, definitions[0].value, env, depth - 1)

    return fold_int(expr, lookup)


def arange_length(ctx: "FileContext", call: ast.Call) -> list[SizeValue]:
    """The lengths ``end - start`` of ``tl.arange(start, end)``, per value the kernel or its
    launches fix (see ``int_values``)."""
    span = _arange_span(call)
    return int_values(ctx, span, at=call) if span is not None else []


def fold_in(ctx: "FileContext", expr: ast.expr, env: dict[str, int]) -> int | None:
    """``expr`` folded to an int with the constexpr values ``env`` gives (one launch's or one
    autotune config's), through the names the kernel assigns."""
    return _fold(ctx, expr, env)


def arange_length_in(ctx: "FileContext", call: ast.Call, env: dict[str, int]) -> int | None:
    """The length of ``tl.arange(start, end)`` under the constexpr values ``env``."""
    span = _arange_span(call)
    return _fold(ctx, span, env) if span is not None else None


def _arange_span(call: ast.Call) -> ast.expr | None:
    start = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "start"), None)
    end = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "end"), None)
    if start is None or end is None:
        return None
    return ast.BinOp(end, ast.Sub(), start)


def axis_aranges(ctx: "FileContext", expr: ast.expr, axis: int) -> tuple[ast.Call, ...]:
    """The ``tl.arange`` calls that span ``axis`` (0 rows, 1 columns) of the 2D tile ``expr``
    addresses: those inside the vectors broadcast along that axis (``offs_k[None, :]``)."""
    return remembered(ctx, "axis_aranges", expr, lambda: _axis_aranges(ctx, expr, axis), axis)


def _axis_aranges(ctx: "FileContext", expr: ast.expr, axis: int) -> tuple[ast.Call, ...]:
    found: list[ast.Call] = []

    def collect(node: ast.AST) -> bool:
        if ctx.is_call(node, triton.ARANGE):
            found.append(node)
        return False

    def match(node: ast.AST) -> bool:
        operand = broadcast_operand(ctx, node)
        if operand is not None and operand[1] == axis:
            reaches(ctx, operand[0], collect)
        return False

    reaches(ctx, expr, match, prune=lambda n: ctx.is_call(n, triton.LOAD))
    return tuple(found)


def operand_extent(ctx: "FileContext", operand: ast.expr, axis: int) -> list[SizeValue]:
    """The sizes ``axis`` of a 2D tile takes, for a tile read by ``tl.load`` (through names and
    ``.to(...)``): from the ``block_shape`` of a ``tl.make_block_ptr``, or from the
    ``tl.arange`` lengths of the offsets broadcast along that axis. Empty when unknown."""
    load = load_of(ctx, operand)
    pointer = signature_argument(load, triton.SIGNATURES[triton.LOAD], "pointer") if load is not None else None
    if pointer is None:
        return []
    block_ptr = reaches(ctx, pointer, lambda n: ctx.is_call(n, triton.MAKE_BLOCK_PTR))
    if block_ptr is not None:
        shape = signature_argument(block_ptr, triton.SIGNATURES[triton.MAKE_BLOCK_PTR], "block_shape")
        if isinstance(shape, (ast.Tuple, ast.List)) and len(shape.elts) == 2:
            return int_values(ctx, shape.elts[axis], at=block_ptr)
        return []
    found = []
    for arange in axis_aranges(ctx, pointer, axis):
        found.extend(arange_length(ctx, arange))
    return found
