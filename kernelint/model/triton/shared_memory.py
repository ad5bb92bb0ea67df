"""Shared memory a Triton kernel's software pipeline needs, per launch and per autotune config.

Triton's pipeliner keeps ``num_stages`` copies in shared memory of each tile a ``tl.dot`` in a
``for`` loop reads with ``tl.load`` in that loop, so a GEMM needs
``num_stages * (BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N) * element size`` bytes (Triton's own
``early_config_prune`` formula; compiled for sm_90 with Triton 3.9 the kernel's
``metadata.shared`` equals it exactly once the loads are aligned). The estimate counts only those
tiles, so it is a lower bound: the epilogue, other loads and layout conversions come on top.

A setting is what one launch (``kernel[grid](..., BLOCK_M=128, num_stages=4)``) or one
``triton.Config({...}, num_stages=4)`` of a readable config list (``model/triton/autotune.py``) fixes:
the constexpr values (with the kernel's defaults under them) and ``num_stages`` (Triton's default,
3, when neither says). A tile's element size
comes from the host tensors the project passes (``model/project/host.py``); where they cannot all
be followed the estimate takes 1 byte, the least any ``tl.dot`` operand has, and says so.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kernelint.model.triton.autotune import tuned_configs
from kernelint.model.core.calls import signature_argument
from kernelint.model.core.dataflow import is_dot, load_of, reaches
from kernelint.model.dsl import triton
from kernelint.model.project.host import loaded_dtypes
from kernelint.model.triton.tiles import arange_length_in, axis_aranges, fold_in
from kernelint.model.core.walk import subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

#: ``CUDAOptions.num_stages`` (``triton/backends/nvidia/compiler.py``) and ``triton.Config``'s default.
DEFAULT_NUM_STAGES = 3
#: The smallest element a ``tl.dot`` operand can have (fp8, int8): the bound used when the host
#: tensors' dtypes are not all known.
_LEAST_ELEMENT_BYTES = 1
#: The widest element a tile can hold (int64, fp64).
_WIDEST_ELEMENT_BYTES = 8


@dataclass(frozen=True)
class Setting:
    """What one launch or one autotune config fixes. ``site``: the launch call or the
    ``triton.Config(...)`` call (one call makes several configs in a comprehension, ``bound``
    gives its variables); ``config``: True for a config; ``filtered``: the kernel's configs come
    from a comprehension whose filter was ignored, so this one may never be benchmarked."""

    site: ast.Call
    env: dict[str, int]
    num_stages: int
    config: bool
    bound: dict[str, int] = field(default_factory=dict)
    filtered: bool = False


@dataclass(frozen=True)
class PipelineEstimate:
    """The shared memory one K loop's pipeline needs under one setting."""

    setting: Setting
    loop: ast.For
    num_stages: int
    tiles: tuple[tuple[ast.Call, int, int], ...]  # (load, elements, element bytes)
    #: Some element size was not known and taken as 1 byte.
    least_element: bool

    @property
    def bytes(self) -> int:
        return self.num_stages * sum(elements * size for _, elements, size in self.tiles)


def settings(ctx: "FileContext", kernel: "Kernel") -> list[Setting]:
    """Every launch of ``kernel`` in this file, or, for an autotuned kernel, every literal config
    (under each launch's other constexprs). Settings whose ``num_stages`` does not fold are left out."""
    constexprs = kernel.constexpr_names(ctx.qualname)
    defaults = {}
    for name, expr in kernel.defaults().items():
        value = ctx.resolve_int(expr) if name in constexprs else None
        if value is not None:
            defaults[name] = value
    launches = []
    for launch in ctx.launches_of("triton"):
        if launch.kernel is not kernel:
            continue
        env = dict(defaults)
        for name, argument in launch.bound_arguments().items():
            value = ctx.resolve_int(argument) if name in constexprs else None
            if value is not None:
                env[name] = value
        launches.append((launch, env))
    if kernel.autotune is None:
        found = []
        for launch, env in launches:
            stages = _stages(ctx, launch.keywords.get("num_stages"))
            if stages is not None:
                found.append(Setting(launch.node, env, stages, config=False))
        return found
    tuned = tuned_configs(ctx, kernel.autotune.node)
    if tuned is None:
        return []
    configs, filtered = tuned
    bases = [env for _, env in launches] or [defaults]
    found = []
    for config in configs:
        stages = config.options.get("num_stages", DEFAULT_NUM_STAGES)
        for base in bases:
            found.append(Setting(config.site, {**base, **config.values}, stages, config=True,
                                 bound=config.bound, filtered=filtered))
    return found


def _stages(ctx: "FileContext", expr: ast.expr | None) -> int | None:
    return DEFAULT_NUM_STAGES if expr is None else ctx.resolve_int(expr)


def pipelined_loads(ctx: "FileContext", kernel: "Kernel") -> dict[int, tuple[ast.For, list[ast.Call]]]:
    """id(loop) -> (the ``for`` loop, the ``tl.load`` calls in it whose tiles a ``tl.dot`` in it
    reads directly or through names and casts)."""
    found: dict[int, tuple[ast.For, list[ast.Call]]] = {}
    for node in subtree(kernel.node):
        if not is_dot(ctx, node):
            continue
        loops = ctx.loops_of(node)
        if not loops or not isinstance(loops[0], ast.For):
            continue
        loop = loops[0]
        for operand in node.args[:2]:
            load = load_of(ctx, operand)
            if load is None or not any(enclosing is loop for enclosing in ctx.loops_of(load)):
                continue
            entry = found.setdefault(id(loop), (loop, []))
            if all(known is not load for known in entry[1]):
                entry[1].append(load)
    return found


def estimates(ctx: "FileContext", kernel: "Kernel", among: list[Setting] | None = None,
              above: int | None = None) -> list[PipelineEstimate]:
    """The pipeline's shared memory per setting (``among``, default all of the kernel's) and K
    loop, where at least one tile's size folds; with ``above``, only the estimates that could
    exceed it with the widest elements (the host's dtypes are looked up for those alone)."""
    loops = pipelined_loads(ctx, kernel)
    if not loops:
        return []
    sizes: dict[int, tuple[int, bool]] = {}
    found = []
    for setting in settings(ctx, kernel) if among is None else among:
        for loop, loads in loops.values():
            folded = [(load, elements) for load in loads
                      if (elements := _tile_elements(ctx, load, setting.env)) is not None]
            if not folded:
                continue
            stages = _loop_stages(ctx, loop) or setting.num_stages
            if above is not None and stages * _WIDEST_ELEMENT_BYTES * sum(e for _, e in folded) <= above:
                continue
            tiles, least = [], False
            for load, elements in folded:
                if id(load) not in sizes:
                    sizes[id(load)] = _element_bytes(ctx, kernel, load)
                size, known = sizes[id(load)]
                least = least or not known
                tiles.append((load, elements, size))
            found.append(PipelineEstimate(setting, loop, stages, tuple(tiles), least))
    return found


def _loop_stages(ctx: "FileContext", loop: ast.For) -> int | None:
    """``num_stages`` a ``tl.range(..., num_stages=S)`` loop sets for itself."""
    header = loop.iter
    if isinstance(header, ast.Call) and ctx.call_name(header) == triton.RANGE:
        stages = next((k.value for k in header.keywords if k.arg == "num_stages"), None)
        return ctx.resolve_int(stages) if stages is not None else None
    return None


def _tile_elements(ctx: "FileContext", load: ast.Call, env: dict[str, int]) -> int | None:
    pointer = signature_argument(load, triton.SIGNATURES[triton.LOAD], "pointer")
    if pointer is None:
        return None
    block_ptr = reaches(ctx, pointer, lambda n: ctx.is_call(n, triton.MAKE_BLOCK_PTR))
    if block_ptr is not None:
        shape = signature_argument(block_ptr, triton.SIGNATURES[triton.MAKE_BLOCK_PTR], "block_shape")
        if not isinstance(shape, (ast.Tuple, ast.List)) or len(shape.elts) != 2:
            return None
        extents = [fold_in(ctx, element, env) for element in shape.elts]
    else:
        extents = []
        for axis in (0, 1):
            lengths = {arange_length_in(ctx, arange, env) for arange in axis_aranges(ctx, pointer, axis)}
            extents.append(lengths.pop() if len(lengths) == 1 else None)
    if any(e is None or e <= 0 for e in extents):
        return None
    return extents[0] * extents[1]


def _element_bytes(ctx: "FileContext", kernel: "Kernel", load: ast.Call) -> tuple[int, bool]:
    """(bytes, known): the smallest element of the host tensors the project passes for the
    tile's base pointer, or the least any operand has when they are not all known."""
    host = loaded_dtypes(ctx.project, ctx, kernel, load)
    if host.complete and host.known:
        bits = [triton.BITS.get(triton.TORCH_TO_TRITON.get(name, "")) for name in host.known]
        if all(b is not None for b in bits):
            return max(min(bits) // 8, 1), True  # type: ignore[type-var]
    return _LEAST_ELEMENT_BYTES, False


def worst_per_setting(ctx: "FileContext", kernel: "Kernel",
                      above: int | None = None) -> list[tuple[Setting, PipelineEstimate | None]]:
    """Every setting of ``kernel`` with its largest K-loop estimate (None when no loop's tiles
    could be sized under it, or, with ``above``, none can exceed it); empty when the kernel has
    no such loop."""
    every = settings(ctx, kernel)
    worst: dict[int, PipelineEstimate] = {}
    for estimate in estimates(ctx, kernel, every, above):
        key = id(estimate.setting)
        if key not in worst or estimate.bytes > worst[key].bytes:
            worst[key] = estimate
    if not worst:
        return []
    return [(setting, worst.get(id(setting))) for setting in every]
