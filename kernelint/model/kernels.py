"""Kernel discovery: which functions are Triton, cuTile or CuTe DSL kernels, and how they are tuned."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import CONSTEXPR_ANNOTATIONS, KERNEL_DECORATORS
from kernelint.model.dsl import triton


@dataclass
class Autotune:
    """What an ``@triton.autotune`` decorator tunes. ``config_keys`` lists the meta-parameter
    names its ``triton.Config`` dicts set; ``keys_complete`` is False when some config could not
    be read, so absence of a name proves nothing."""

    node: ast.Call
    config_keys: set[str] = field(default_factory=set)
    keys_complete: bool = False


@dataclass
class Kernel:
    node: ast.FunctionDef | ast.AsyncFunctionDef
    dsl: str
    decorators: list[str]
    autotune: Autotune | None = None
    heuristic_keys: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def params(self) -> list[ast.arg]:
        args = self.node.args
        return [*args.posonlyargs, *args.args, *args.kwonlyargs]

    @cached_property
    def param_ids(self) -> frozenset[int]:
        """``id`` of each of ``params`` (the tree does not change while the kernel is read)."""
        return frozenset(id(p) for p in self.params)

    def is_constexpr(self, arg: ast.arg, qualname: Callable[[ast.AST], str | None]) -> bool:
        annotation = arg.annotation
        if annotation is None:
            return False
        if isinstance(annotation, ast.Subscript):  # ct.Constant[int], cutlass.Constexpr[int]
            annotation = annotation.value
        return qualname(annotation) in CONSTEXPR_ANNOTATIONS

    def constexpr_names(self, qualname: Callable[[ast.AST], str | None]) -> set[str]:
        return {a.arg for a in self.params if self.is_constexpr(a, qualname)}

    def defaults(self) -> dict[str, ast.expr]:
        """Parameter name -> default value expression, for the parameters that have one."""
        args = self.node.args
        positional = [*args.posonlyargs, *args.args]
        named = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults))
        named.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
        return named

    def tuned_names(self) -> set[str]:
        """Meta-parameters the launcher must not pass: autotuned config keys and heuristics."""
        keys = set(self.heuristic_keys)
        if self.autotune:
            keys |= self.autotune.config_keys
        return keys


def _decorator_call(decorator: ast.expr) -> tuple[ast.expr, ast.Call | None]:
    if isinstance(decorator, ast.Call):
        return decorator.func, decorator
    return decorator, None


def find_kernel(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    qualname: Callable[[ast.AST], str | None],
    resolve_configs: Callable[[ast.expr], tuple[set[str], bool]],
) -> Kernel | None:
    """The kernel ``node`` defines, or None if no kernel decorator is on it."""
    names: list[str] = []
    dsl = None
    autotune = None
    heuristic_keys: set[str] = set()
    for decorator in node.decorator_list:
        func, call = _decorator_call(decorator)
        name = qualname(func)
        if name is None:
            continue
        names.append(name)
        if name in KERNEL_DECORATORS:
            dsl = dsl or KERNEL_DECORATORS[name]
        if name == triton.AUTOTUNE and call is not None:
            configs = signature_argument(call, triton.SIGNATURES[name], "configs")
            autotune = Autotune(call)
            if configs is not None:
                autotune.config_keys, autotune.keys_complete = resolve_configs(configs)
        elif name == triton.HEURISTICS and call is not None:
            values = signature_argument(call, triton.SIGNATURES[name], "values")
            if isinstance(values, ast.Dict):
                heuristic_keys |= {
                    k.value for k in values.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)
                }
    if dsl is None:
        return None
    return Kernel(node, dsl, names, autotune, heuristic_keys)


def config_dict_keys(config_call: ast.Call) -> set[str] | None:
    """Keys of the dict a ``triton.Config(...)`` sets, or None when it is not a literal dict."""
    kwargs = signature_argument(config_call, triton.SIGNATURES[triton.CONFIG], "kwargs")
    if isinstance(kwargs, ast.Dict) and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) for k in kwargs.keys
    ):
        return {k.value for k in kwargs.keys}  # type: ignore[union-attr]
    if isinstance(kwargs, ast.Call) and isinstance(kwargs.func, ast.Name) and kwargs.func.id == "dict":
        if not kwargs.args and all(k.arg for k in kwargs.keywords):
            return {k.arg for k in kwargs.keywords}  # type: ignore[misc]
    return None
