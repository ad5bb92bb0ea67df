"""Which kernel parameter each memory access of a Triton kernel goes through.

A raw pointer ``x_ptr + row * stride + cols`` is offset from the parameter ``x_ptr`` (summands
are followed through names and ``x_ptr += ...`` updates); a block pointer from
``tl.make_block_ptr(base=x_ptr, ...)`` and ``tl.advance`` of one; a tensor descriptor from
``tl.make_tensor_descriptor(x_ptr, ...)`` or a descriptor parameter itself (``desc.load``).
Answers "does this kernel read and write the same buffer", never where in it.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

from kernelint.model.core import dataflow
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.core.walk import subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_MAX_DEPTH = 8
_DESCRIPTOR_METHODS = {"load": "load", "store": "store", "atomic_add": "atomic"}


@dataclass(frozen=True)
class Access:
    """One ``tl.load``/``tl.store``/``tl.atomic_*`` (or descriptor method) in a kernel."""

    call: ast.Call
    kind: str  # "load", "store", "atomic"
    #: Qualified name of the atomic (``triton.language.atomic_add``) or None.
    atomic: str | None
    #: Parameters of the kernel whose memory the access touches.
    parameters: frozenset[str]
    #: The value written (store, atomic), else None.
    value: ast.expr | None


_INTEGER_OPS = (ast.Mult, ast.FloorDiv, ast.Mod, ast.Div, ast.LShift, ast.RShift, ast.Pow)
_INTEGER_CALLS = frozenset({triton.ARANGE, *triton.CDIVS, triton.TL + "minimum", triton.TL + "maximum",
                            triton.RANGE, triton.STATIC_RANGE, triton.ZEROS, triton.FULL})


def pointer_like_parameters(ctx: "FileContext", kernel: "Kernel") -> frozenset[str]:
    """Parameters of ``kernel`` that may be pointers: not ``tl.constexpr`` and never used the way
    only integers are (compared, multiplied or divided, a loop bound, a size, ``min``/``max``).
    A pointer ``x_ptr + start + offs`` has one pointer summand; this tells it from ``start``."""
    cache = ctx.__dict__.setdefault("_pointer_like_parameters", {})
    if id(kernel.node) in cache:
        return cache[id(kernel.node)]
    candidates = {a.arg for a in kernel.params} - kernel.constexpr_names(ctx.qualname)
    integers: set[str] = set()
    for node in subtree(kernel.node):
        if isinstance(node, ast.Compare):
            if not any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
                operands = [node.left, *node.comparators]
            else:
                continue
        elif isinstance(node, ast.BinOp) and isinstance(node.op, _INTEGER_OPS):
            operands = [node.left, node.right]
        elif isinstance(node, ast.Call) and node.args and (
            (isinstance(node.func, ast.Name) and node.func.id in ("range", "min", "max"))
            or ctx.call_name(node) in _INTEGER_CALLS
        ):
            operands = node.args
        else:
            continue
        integers.update(o.id for o in operands if isinstance(o, ast.Name) and o.id in candidates)
    cache[id(kernel.node)] = frozenset(candidates - integers)
    return cache[id(kernel.node)]


def base_parameters(ctx: "FileContext", kernel: "Kernel", pointer: ast.expr, depth: int = 0) -> frozenset[str]:
    """Parameters of ``kernel`` that ``pointer`` is an offset of (empty when none can be read).
    Names are followed to the bindings that reach this use, so a pointer variable reused for
    another buffer later in the kernel does not mix the two."""
    if depth > _MAX_DEPTH:
        return frozenset()
    found: set[str] = set()
    for term in _summands(ctx, pointer, depth):
        if isinstance(term, ast.arg):
            if term.arg in pointer_like_parameters(ctx, kernel):
                found.add(term.arg)
            continue
        name = ctx.call_name(term)
        if name in (triton.MAKE_BLOCK_PTR, triton.ADVANCE, triton.MAKE_TENSOR_DESCRIPTOR):
            base = signature_argument(term, triton.SIGNATURES[name], "base")
            if base is not None:
                found |= base_parameters(ctx, kernel, base, depth + 1)
    return frozenset(found)


def _summands(ctx: "FileContext", expr: ast.AST, depth: int) -> list[ast.AST]:
    """The summands of ``expr`` through the bindings of its names that reach it; a parameter
    gives its ``ast.arg``."""
    if depth > _MAX_DEPTH:
        return []
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        right = _summands(ctx, expr.right, depth) if isinstance(expr.op, ast.Add) else []
        return _summands(ctx, expr.left, depth) + right
    if isinstance(expr, ast.Call) and ctx.call_name(expr) in triton.HINTS and expr.args:
        return _summands(ctx, expr.args[0], depth)
    if not isinstance(expr, ast.Name):
        return [expr]
    terms: list[ast.AST] = []
    for definition in reaching_definitions(ctx, expr):
        node = definition.node
        if definition.kind == "param":
            terms.append(node)
        elif definition.kind == "assign" and definition.value is not None:
            terms += _summands(ctx, definition.value, depth + 1)
        elif definition.kind == "augassign" and isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            if isinstance(node.op, (ast.Add, ast.Sub)):
                terms += _summands(ctx, node.target, depth + 1)
    return terms


def kernel_calls(ctx: "FileContext", kernel: "Kernel") -> list[ast.Call]:
    """The calls in ``kernel``'s own body, in source order; the file's calls are grouped by
    kernel once."""
    by_kernel = ctx.__dict__.get("_calls_by_kernel")
    if by_kernel is None:
        by_kernel = {}
        for call in ctx.nodes(ast.Call):
            owner = ctx.kernel_of(call, "triton")
            if owner is not None:
                by_kernel.setdefault(id(owner.node), []).append(call)
        ctx.__dict__["_calls_by_kernel"] = by_kernel
    return by_kernel.get(id(kernel.node), [])


def pointer_calls(ctx: "FileContext", kernel: "Kernel") -> Iterator[tuple[ast.Call, str, ast.expr]]:
    """``(call, name, pointer)`` for each load, store and atomic in ``kernel``'s own body that
    names its pointer, in source order: the accesses without the costlier search for their
    base parameters."""
    for call in kernel_calls(ctx, kernel):
        name = ctx.call_name(call)
        pointer = _pointer_of(call, name)
        if pointer is not None:
            yield call, name, pointer


def _pointer_of(call: ast.Call, name: str | None) -> ast.expr | None:
    if name in (triton.LOAD, triton.STORE) or name in triton.ATOMICS:
        return signature_argument(call, triton.SIGNATURES.get(name, ("pointer", "val")), "pointer")
    return None


def _accesses(ctx: "FileContext", kernel: "Kernel") -> list[Access]:
    accesses = []
    for call in kernel_calls(ctx, kernel):
        name = ctx.call_name(call)
        pointer = _pointer_of(call, name)
        if pointer is not None:
            signature = triton.SIGNATURES.get(name, ("pointer", "val"))
            kind = "load" if name == triton.LOAD else "store" if name == triton.STORE else "atomic"
            value = (signature_argument(call, signature, "value") if kind == "store"
                     else signature_argument(call, signature, "val") if name == triton.ATOMIC_ADD else None)
            accesses.append(Access(call, kind, name if kind == "atomic" else None,
                                   base_parameters(ctx, kernel, pointer), value))
        elif isinstance(call.func, ast.Attribute) and call.func.attr in _DESCRIPTOR_METHODS and name is None:
            kind = _DESCRIPTOR_METHODS[call.func.attr]
            descriptor = call.func.value
            parameters = base_parameters(ctx, kernel, descriptor)
            if not parameters:
                continue
            value = call.args[1] if kind != "load" and len(call.args) > 1 else None
            accesses.append(Access(call, kind, triton.TL + "atomic_add" if kind == "atomic" else None,
                                   parameters, value))
    return accesses


def accesses(ctx: "FileContext", kernel: "Kernel") -> list[Access]:
    """Every memory access in ``kernel``'s own body (helpers it calls are not looked into),
    computed once per kernel and file."""
    cache = ctx.__dict__.setdefault("_memory_accesses", {})
    key = id(kernel.node)
    if key not in cache:
        cache[key] = _accesses(ctx, kernel)
    return cache[key]


def pointers_among(ctx: "FileContext", kernel: "Kernel", parameters: frozenset[str]) -> frozenset[str]:
    """Which of the pointer-like ``parameters`` summed into one address can be its pointer.

    Triton adds no two pointers, so one summand is the pointer and the others offsets
    (``x_ptr + row_start + offs``). A parameter that is some access's only pointer-like summand is
    a pointer; one summed with such a pointer elsewhere in the kernel is an offset; and when
    several remain and exactly one is named as a pointer (``*ptr``/``*ptrs``, Triton's convention),
    that one is. More than one left: the address alone does not say (the caller decides what to
    do with an ambiguous answer)."""
    if len(parameters) <= 1:
        return parameters
    alone = {next(iter(a.parameters)) for a in accesses(ctx, kernel) if len(a.parameters) == 1}
    offsets = {p for a in accesses(ctx, kernel) if a.parameters & alone for p in a.parameters - alone}
    left = parameters - offsets
    if len(left) > 1 and len(left & alone) == 1:
        left = left & alone
    named = {p for p in left if p.lower().endswith(("ptr", "ptrs"))}
    if len(left) > 1 and len(named) == 1:
        left = named
    return frozenset(left) or parameters


def caller_data_loads(ctx: "FileContext", kernel: "Kernel", parameter: str) -> list[ast.Call]:
    """Loads of ``parameter``'s memory that come before the kernel's first store or atomic into it,
    in source order: they read what the caller passed, not what this launch wrote."""
    own = [a for a in accesses(ctx, kernel) if parameter in a.parameters]
    writes = [_position(a.call) for a in own if a.kind != "load"]
    first_write = min(writes) if writes else (float("inf"), 0)
    return [a.call for a in own if a.kind == "load" and _position(a.call) < first_write]


def written_before(ctx: "FileContext", kernel: "Kernel", parameter: str, node: ast.AST) -> bool:
    """True when the kernel has a plain store into ``parameter``'s memory before ``node`` in
    source order."""
    return any(
        a.kind == "store" and parameter in a.parameters and _position(a.call) < _position(node)
        for a in accesses(ctx, kernel)
    )


def _position(node: ast.AST) -> tuple[int, int]:
    return node.lineno, node.col_offset


def computed_from(ctx: "FileContext", expr: ast.expr, loads: list[ast.Call]) -> bool:
    """True when ``expr`` is computed from one of ``loads``."""
    wanted = {id(load) for load in loads}
    return bool(wanted) and dataflow.reaches(ctx, expr, lambda node: id(node) in wanted) is not None
