"""Access records of a Triton kernel: every ``tl.load``, ``tl.store``, atomic, block-pointer and
tensor-descriptor access, with its address as a polynomial (``symexpr.Poly``) over the kernel's
program ids, ``tl.arange`` lanes, loop variables and parameters, and its mask as constraints.

One pass over the kernel (``kernel_index``, cached per file model and kernel) evaluates each
address expression symbolically:

- ``tl.program_id(a)`` is ``pid<a>`` in ``[0, grid[a] - 1]`` (the grid comes with a launch, see
  ``launch.py``); ``tl.num_programs(a)`` is ``npid<a>``;
- ``tl.arange(s, e)`` is a lane symbol in ``[s, e - 1]``; ``x[:, None]`` and ``x[None, :]``
  keep the value and record the tile axis of its lanes;
- a ``for v in range(lo, hi)`` (``tl.range``, ``tl.static_range``) variable is a loop symbol in
  ``[lo, hi - 1]``;
- a parameter is ``param:<name>`` (a ``tl.constexpr`` one is ``const:<name>``, with the values
  launches and configs give it);
- a scalar ``tl.load`` is an opaque loaded value;
- names are followed through the single binding that reaches the use (``x += d`` included),
  ``.to(...)``, ``tl.cast``, ``tl.multiple_of``, ``tl.cdiv``, ``tl.minimum``/``maximum``.

The pointer an address is based on is the one parameter that appears in it linearly with
coefficient 1 (``x_ptr + row * stride + cols``); the rest is the element offset. A mask
``a < b`` becomes the constraint ``a - b + 1 <= 0`` (``&`` a conjunction), so a bound question
is ``Symbols.implied(offset - extent + 1, access.mask)``. Anything the pass cannot read is None
(unknown stays unknown, and no rule reports on it).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.index import symexpr as sx
from kernelint.model.index.bounds import INF, Range, Symbols
from kernelint.model.index.symexpr import Poly
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.core.memo import kept_on

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

_DEPTH = 24
_RANGES = frozenset({triton.RANGE, triton.STATIC_RANGE})
_PASS_THROUGH = frozenset({triton.TL + "multiple_of", triton.TL + "max_contiguous", triton.TL + "max_constancy"})
_CAST = triton.TL + "cast"
_NUM_PROGRAMS = triton.TL + "num_programs"
_MINIMUM, _MAXIMUM = triton.TL + "minimum", triton.TL + "maximum"
_DESCRIPTOR_LOAD = frozenset({"load", "store", "atomic_add"})

PID = "pid"
PARAM = "param:"
CONST = "const:"


@dataclass(frozen=True)
class Access:
    """One memory access. ``offset`` is in elements from ``pointer`` (a parameter name); ``mask``
    the constraints (each ``p <= 0``) its mask guarantees, ``mask_complete`` False when part of
    the mask could not be read; ``boundary_check`` the checked dimensions of a block-pointer
    access; ``block`` the block pointer or descriptor it goes through."""

    node: ast.Call
    kind: str  # "load", "store", "atomic", "block_load", "block_store", "descriptor"
    pointer: str | None
    offset: Poly | None
    masked: bool
    mask: tuple[Poly, ...] = ()
    mask_complete: bool = True
    other: ast.expr | None = None
    boundary_check: tuple[int, ...] | None = None
    block: "BlockPointer | None" = None


@dataclass(frozen=True)
class BlockPointer:
    """``tl.make_block_ptr`` / ``tl.make_tensor_descriptor``: extent and position per dimension."""

    node: ast.Call
    pointer: str | None
    shape: tuple[Poly | None, ...]
    strides: tuple[Poly | None, ...]
    offsets: tuple[Poly | None, ...]
    block_shape: tuple[Poly | None, ...]
    descriptor: bool = False


@dataclass
class KernelIndex:
    """The access records of one kernel and the ranges of its symbols (those that need no
    launch: lanes, loops, constexpr values)."""

    kernel: "Kernel"
    accesses: list[Access]
    symbols: Symbols
    #: lane symbol -> tile axis (0 rows, 1 columns) where a broadcast shows it.
    lane_axes: dict[str, int] = field(default_factory=dict)
    evaluator: "_Evaluator | None" = None

    def value(self, expr: ast.AST) -> Poly | None:
        """The symbolic value of a kernel expression (for rules that look at one product)."""
        return self.evaluator.value(expr) if self.evaluator is not None else None




def kernel_index(ctx: "FileContext", kernel: "Kernel") -> KernelIndex:
    per_file = kept_on(ctx, "kernel_index")
    found = per_file.get(id(kernel.node))
    if found is None:
        found = _build(ctx, kernel)
        per_file[id(kernel.node)] = found
    return found


class _Evaluator:
    #: Whether a name bound before a loop and stepped in it (``p += BLOCK``, ``p = tl.advance(p,
    #: ...)``) is read (``carried.py``); the base index leaves it unknown.
    reads_carried = False

    def carried(self, name: ast.Name, definitions: list, depth: int) -> Poly | None:
        return None

    def carried_block(self, name: ast.Name, definitions: list) -> tuple[ast.expr, ast.expr, Poly] | None:
        """``(start, step, iteration)`` of a block pointer advanced once per loop iteration."""
        return None

    def __init__(self, ctx: "FileContext", kernel: "Kernel"):
        self.ctx = ctx
        self.kernel = kernel
        self.symbols = Symbols()
        self.lane_axes: dict[str, int] = {}
        self._memo: dict[int, Poly | None] = {}
        self._params = {id(p): p for p in kernel.params}
        self._constexprs = kernel.constexpr_names(ctx.qualname)
        self.pointer_params: set[str] = set()

    # --- values ------------------------------------------------------------------------------

    def value(self, expr: ast.AST | None, depth: int = 0) -> Poly | None:
        if expr is None or depth > _DEPTH:
            return None
        key = id(expr)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None  # a cycle reads as unknown
        found = self._value(expr, depth)
        self._memo[key] = found
        return found

    def _value(self, expr: ast.AST, depth: int) -> Poly | None:
        if isinstance(expr, ast.Constant):
            value = expr.value
            return sx.const(value) if isinstance(value, int) and not isinstance(value, bool) else None
        if isinstance(expr, ast.Name):
            return self._name(expr, depth)
        if isinstance(expr, ast.BinOp):
            left, right = self.value(expr.left, depth + 1), self.value(expr.right, depth + 1)
            if left is None or right is None:
                return None
            return sx.from_operator(expr.op, left, right)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            inner = self.value(expr.operand, depth + 1)
            return -inner if inner is not None else None
        if isinstance(expr, ast.Subscript):
            return self._broadcast(expr, depth)
        if isinstance(expr, ast.Call):
            return self._call(expr, depth)
        return None

    def _name(self, name: ast.Name, depth: int) -> Poly | None:
        ctx = self.ctx
        definitions = reaching_definitions(ctx, name)
        if len(definitions) != 1:
            if len(definitions) == 2 and self.reads_carried:
                return self.carried(name, definitions, depth)
            resolved = ctx.resolve_int(name)
            return sx.const(resolved) if resolved is not None else None
        definition = definitions[0]
        node = definition.node
        if isinstance(node, ast.arg):
            if id(node) not in self._params:
                return None
            return self._parameter(node)
        if ctx.function_of(node) is not self.kernel.node:
            resolved = ctx.resolve_int(name)  # a module constant
            return sx.const(resolved) if resolved is not None else None
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            before = self.value(node.target, depth + 1)
            step = self.value(node.value, depth + 1)
            return sx.from_operator(node.op, before, step) if before is not None and step is not None else None
        if definition.kind == "loop" and isinstance(node, ast.For):
            return self._loop(node, name)
        if definition.kind == "assign" and definition.value is not None:
            return self.value(definition.value, depth + 1)
        return None

    def _parameter(self, param: ast.arg) -> Poly:
        if param.arg in self._constexprs:
            name = CONST + param.arg
            if name not in self.symbols.ranges:
                self.symbols.set(name, Range(num_lo=0, label=param.arg))
            return sx.sym(name)
        name = PARAM + param.arg
        if name not in self.symbols.ranges:
            self.symbols.set(name, Range(label=param.arg))
        return sx.sym(name)

    def _loop(self, loop: ast.For, name: ast.Name) -> Poly | None:
        if not (isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)):
            return None
        iterator = loop.iter
        builtin = isinstance(iterator.func, ast.Name) and iterator.func.id == "range"
        if not (builtin or self.ctx.call_name(iterator) in _RANGES) or not iterator.args:
            return None
        args = iterator.args
        lo = self.value(args[0]) if len(args) > 1 else sx.ZERO
        hi = self.value(args[1] if len(args) > 1 else args[0])
        step = self.value(args[2]) if len(args) > 2 else sx.ONE
        if step is None or (step.is_const and step.constant <= 0):
            return None  # a symbolic step is taken to be positive (a descending range is rare)
        symbol = f"loop:{loop.lineno}:{loop.col_offset}:{name.id}"
        if symbol not in self.symbols.ranges:
            num_lo = self.symbols.interval(lo)[0] if lo is not None else -INF
            num_hi = self.symbols.interval(hi)[1] - 1 if hi is not None else INF
            self.symbols.set(symbol, Range(lo=lo, hi=hi - 1 if hi is not None else None,
                                           num_lo=num_lo, num_hi=num_hi, label=name.id))
        return sx.sym(symbol)

    def _broadcast(self, expr: ast.Subscript, depth: int) -> Poly | None:
        parts = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        if not all(_is_none(p) or _is_full_slice(p) for p in parts):
            return None
        inner = self.value(expr.value, depth + 1)
        if inner is not None and len(parts) == 2:
            axis = 0 if _is_full_slice(parts[0]) else 1
            for name in inner.symbols():
                if name.startswith("lane:"):
                    self.lane_axes.setdefault(name, axis)
        return inner

    def _call(self, call: ast.Call, depth: int) -> Poly | None:
        ctx = self.ctx
        name = ctx.call_name(call)
        if name == triton.PROGRAM_ID or name == _NUM_PROGRAMS:
            axis = ctx.resolve_int(signature_argument(call, ("axis",), "axis") or ast.Constant(0))
            if axis is None:
                return None
            symbol = f"{PID}{axis}" if name == triton.PROGRAM_ID else f"npid{axis}"
            if symbol not in self.symbols.ranges:
                self.symbols.set(symbol, Range(lo=sx.ZERO, num_lo=0 if symbol.startswith(PID) else 1, label=symbol))
            return sx.sym(symbol)
        if name == triton.ARANGE:
            start = ctx.resolve_int(signature_argument(call, triton.SIGNATURES[triton.ARANGE], "start"))
            end_expr = signature_argument(call, triton.SIGNATURES[triton.ARANGE], "end")
            end = self.value(end_expr)
            if start is None or end is None:
                return None
            symbol = f"lane:{call.lineno}:{call.col_offset}"
            if symbol not in self.symbols.ranges:
                lo, hi = self.symbols.interval(end)
                self.symbols.set(symbol, Range(lo=sx.const(start), hi=end - 1, num_lo=start,
                                               num_hi=hi - 1, label=ast.unparse(call)))
            return sx.sym(symbol)
        if name in _PASS_THROUGH or name == _CAST:
            return self.value(call.args[0], depth + 1) if call.args else None
        if name in triton.CDIVS and len(call.args) == 2:
            a, b = self.value(call.args[0], depth + 1), self.value(call.args[1], depth + 1)
            return sx.cdiv(a, b) if a is not None and b is not None else None
        if name in (_MINIMUM, _MAXIMUM) and len(call.args) == 2:
            a, b = self.value(call.args[0], depth + 1), self.value(call.args[1], depth + 1)
            if a is None or b is None:
                return None
            return sx.minimum(a, b) if name == _MINIMUM else sx.maximum(a, b)
        if name == triton.LOAD:
            symbol = f"loaded:{call.lineno}:{call.col_offset}"
            if symbol not in self.symbols.ranges:
                self.symbols.set(symbol, Range(label=f"the value loaded at line {call.lineno}"))
            return sx.sym(symbol)
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "to" and name is None:
            return self.value(func.value, depth + 1)
        return None

    # --- masks -------------------------------------------------------------------------------

    def constraints(self, mask: ast.AST, depth: int = 0) -> tuple[list[Poly], bool]:
        """The ``p <= 0`` facts ``mask`` guarantees, and whether every part of it was read."""
        if depth > _DEPTH:
            return [], False
        if isinstance(mask, ast.BinOp) and isinstance(mask.op, ast.BitAnd):
            left, left_complete = self.constraints(mask.left, depth + 1)
            right, right_complete = self.constraints(mask.right, depth + 1)
            return left + right, left_complete and right_complete
        if isinstance(mask, ast.BoolOp) and isinstance(mask.op, ast.And):
            facts, complete = [], True
            for value in mask.values:
                more, ok = self.constraints(value, depth + 1)
                facts.extend(more)
                complete = complete and ok
            return facts, complete
        if isinstance(mask, ast.Subscript):
            return self.constraints(mask.value, depth + 1)
        if isinstance(mask, ast.Name):
            definitions = reaching_definitions(self.ctx, mask)
            if len(definitions) == 1 and definitions[0].kind == "assign" and definitions[0].value is not None:
                return self.constraints(definitions[0].value, depth + 1)
            return [], False
        if isinstance(mask, ast.Compare):
            facts: list[Poly] = []
            left = mask.left
            for op, right in zip(mask.ops, mask.comparators):
                fact = self._comparison(op, left, right)
                if fact is None:
                    return facts, False
                facts.extend(fact)
                left = right
            return facts, True
        return [], False

    def _comparison(self, op: ast.cmpop, left: ast.expr, right: ast.expr) -> list[Poly] | None:
        a, b = self.value(left), self.value(right)
        if a is None or b is None:
            return None
        if isinstance(op, ast.Lt):
            return [a - b + 1]
        if isinstance(op, ast.LtE):
            return [a - b]
        if isinstance(op, ast.Gt):
            return [b - a + 1]
        if isinstance(op, ast.GtE):
            return [b - a]
        return None

    # --- addresses ---------------------------------------------------------------------------

    def address(self, expr: ast.AST | None) -> tuple[str | None, Poly | None]:
        """(pointer parameter, element offset) of an address expression; the offset is None when
        it cannot be read (the pointer may still be known: the left end of ``x + ...``)."""
        value = self.value(expr)
        if value is None:
            return self._leftmost_pointer(expr), None
        candidates = [m[0] for m, c in value.terms if len(m) == 1 and c == 1 and m[0].startswith(PARAM)
                      and not _in_product(value, m[0])]
        if len(candidates) != 1:
            candidates = [c for c in candidates if c[len(PARAM):] in self.pointer_params]
        if len(candidates) != 1:
            return None, None
        pointer = candidates[0]
        return pointer[len(PARAM):], value - sx.sym(pointer)


    def _leftmost_pointer(self, expr: ast.AST | None) -> str | None:
        """``x`` in ``x + a + b`` (or ``x += a`` before it) when ``x`` is a non-constexpr
        parameter: where Python starts the sum, a pointer is the left operand."""
        for _ in range(_DEPTH):
            if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
                expr = expr.left
                continue
            if isinstance(expr, ast.Name):
                definitions = reaching_definitions(self.ctx, expr)
                if len(definitions) != 1:
                    return None
                node = definitions[0].node
                if isinstance(node, ast.arg):
                    return node.arg if id(node) in self._params and node.arg not in self._constexprs else None
                if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                    expr = node.target
                    continue
                if definitions[0].kind == "assign" and definitions[0].value is not None:
                    expr = definitions[0].value
                    continue
            return None
        return None


def _in_product(value: Poly, name: str) -> bool:
    return any(name in m and len(m) > 1 for m, _ in value.terms)


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_full_slice(node: ast.AST) -> bool:
    return isinstance(node, ast.Slice) and node.lower is None and node.upper is None and node.step is None


def _int_tuple(ctx: "FileContext", expr: ast.AST | None) -> tuple[int, ...] | None:
    if not isinstance(expr, (ast.Tuple, ast.List)):
        return None
    values = tuple(ctx.resolve_int(e) for e in expr.elts)
    return values if None not in values else None


def _build(ctx: "FileContext", kernel: "Kernel", evaluator_class: type = None) -> KernelIndex:
    evaluator = (evaluator_class or _Evaluator)(ctx, kernel)
    calls = _own_calls(ctx, kernel.node)
    # parameters used as bases of block pointers and descriptors are pointers
    for call in calls:
        if ctx.call_name(call) in (triton.MAKE_BLOCK_PTR, triton.MAKE_TENSOR_DESCRIPTOR):
            base = signature_argument(call, triton.SIGNATURES[ctx.call_name(call)], "base")
            if isinstance(base, ast.Name):
                evaluator.pointer_params.add(base.id)
    accesses: list[Access] = []
    for call in calls:
        access = _access(ctx, evaluator, call)
        if access is not None:
            accesses.append(access)
    return KernelIndex(kernel, accesses, evaluator.symbols, evaluator.lane_axes, evaluator)


def _own_calls(ctx: "FileContext", function: ast.AST) -> list[ast.Call]:
    """The calls in ``function``'s body, not in functions nested in it, in source order."""
    return ctx.calls_in(function)


def _access(ctx: "FileContext", evaluator: _Evaluator, call: ast.Call) -> Access | None:
    name = ctx.call_name(call)
    if name in (triton.LOAD, triton.STORE) or name in triton.ATOMICS:
        signature = triton.SIGNATURES.get(name) or triton.SIGNATURES[triton.ATOMIC_ADD]
        pointer_expr = signature_argument(call, signature, "pointer")
        mask_expr = signature_argument(call, signature, "mask")
        boundary = signature_argument(call, signature, "boundary_check") if "boundary_check" in signature else None
        block = _block_of(ctx, evaluator, pointer_expr)
        kind = "load" if name == triton.LOAD else "store" if name == triton.STORE else "atomic"
        if block is not None:
            checked = _int_tuple(ctx, boundary) if boundary is not None else ()
            return Access(call, f"block_{kind}", block.pointer, None, masked=False,
                          boundary_check=checked, block=block)
        pointer, offset = evaluator.address(pointer_expr)
        facts, complete = evaluator.constraints(mask_expr) if mask_expr is not None else ([], True)
        other = signature_argument(call, signature, "other") if name == triton.LOAD else None
        return Access(call, kind, pointer, offset, mask_expr is not None, tuple(facts), complete, other)
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in _DESCRIPTOR_LOAD and name is None:
        block = _block_of(ctx, evaluator, func.value)
        if block is not None and block.descriptor:
            return Access(call, "descriptor", block.pointer, None, masked=False, block=block)
    return None


def _block_of(ctx: "FileContext", evaluator: _Evaluator, expr: ast.AST | None) -> BlockPointer | None:
    """The block pointer or descriptor ``expr`` holds (through names and ``tl.advance``)."""
    advance: list[tuple[ast.expr | None, Poly]] = []
    for _ in range(8):
        if isinstance(expr, ast.Name):
            definitions = reaching_definitions(ctx, expr)
            if len(definitions) == 2 and evaluator.reads_carried:
                carried = evaluator.carried_block(expr, definitions)
                if carried is None:
                    return None
                expr, step, iteration = carried
                advance.append((step, iteration))
                continue
            if len(definitions) != 1 or definitions[0].kind != "assign" or definitions[0].value is None:
                return None
            expr = definitions[0].value
            continue
        if isinstance(expr, ast.Call) and ctx.call_name(expr) == triton.ADVANCE:
            advance.append((signature_argument(expr, triton.SIGNATURES[triton.ADVANCE], "offsets"), sx.ONE))
            expr = signature_argument(expr, triton.SIGNATURES[triton.ADVANCE], "base")
            continue
        break
    if not isinstance(expr, ast.Call):
        return None
    name = ctx.call_name(expr)
    if name not in (triton.MAKE_BLOCK_PTR, triton.MAKE_TENSOR_DESCRIPTOR):
        return None
    signature = triton.SIGNATURES[name]
    base = signature_argument(expr, signature, "base")
    pointer = base.id if isinstance(base, ast.Name) else evaluator.address(base)[0]

    def polys(arg: str) -> tuple[Poly | None, ...]:
        value = signature_argument(expr, signature, arg)
        if not isinstance(value, (ast.Tuple, ast.List)):
            return ()
        return tuple(evaluator.value(e) for e in value.elts)

    offsets = polys("offsets") if name == triton.MAKE_BLOCK_PTR else ()
    for step, times in advance:
        if not isinstance(step, (ast.Tuple, ast.List)) or len(step.elts) != len(offsets):
            offsets = tuple(None for _ in offsets)
            break
        offsets = tuple(o + s * times if o is not None and s is not None else None
                        for o, s in zip(offsets, (evaluator.value(e) for e in step.elts)))
    return BlockPointer(expr, pointer, polys("shape"), polys("strides"), offsets, polys("block_shape"),
                        descriptor=name == triton.MAKE_TENSOR_DESCRIPTOR)
