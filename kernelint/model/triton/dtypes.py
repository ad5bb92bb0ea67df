"""Element types of Triton kernel values, as far as the source proves them.

Rules ask two things: which literal dtype an expression names (``tl.float16`` -> ``"float16"``,
``torch.int32`` -> ``"int32"``), and how wide a kernel value's floating type is
(``precision_of``). The second follows Triton's promotion rules (``semantic.py``,
``computation_type_impl``): Python scalars and constexprs do not take part, ``/`` and ``%`` on
floats give fp32 or wider, fp32 meets fp16 as fp32, fp16 meets fp16 as fp16. A value read with
``tl.load`` has whatever type its pointer has, which the kernel text does not say.

Reads are flow-sensitive enough for straight-line kernel code: a name's value is the last
assignment that must run before the use, plus assignments in branches and loop-carried updates
that may run. Where several of them disagree, the answer is ``UNKNOWN``.
"""
from __future__ import annotations

import ast
from enum import Enum
from typing import TYPE_CHECKING

from kernelint.model.core import calls_graph
from kernelint.model.core.calls import argument
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.core.values import Definition

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

from kernelint.model.core.dtype_names import torch_dtype, torch_dtype_named, triton_dtype  # noqa: F401 (rules import them from here)
from kernelint.model.dsl.triton import FLOAT_LOW as TRITON_FLOAT_LOW
from kernelint.model.dsl.triton import FLOAT_WIDE as TRITON_FLOAT_WIDE
from kernelint.model.dsl.triton import TL

class Precision(Enum):
    """How wide a kernel value's float type provably is."""

    WIDE = "fp32/fp64"
    LOW = "fp16/bf16/fp8"
    #: Read from memory (``tl.load``) and not converted since: as wide as the pointer's tensor.
    LOADED = "loaded"
    #: A Python number or constexpr: takes the type of the tensor it meets.
    SCALAR = "scalar"
    UNKNOWN = "unknown"


#: The calls ``conversion_target`` can answer for.
CONVERSION_CALLS = frozenset({".to", TL + "cast"})


def conversion_target(ctx: "FileContext", call: ast.Call) -> ast.expr | None:
    """The dtype a kernel-side conversion converts to: ``x.to(T)``, ``x.to(dtype=T)``,
    ``tl.cast(x, T)``; None for any other call."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "to" and ctx.qualname(func) is None:
        positional = call.args[:1]
    elif ctx.call_name(call) == TL + "cast":
        positional = call.args[1:2]
    else:
        return None
    return positional[0] if positional else argument(call, "dtype")


def precision_of_dtype(name: str | None) -> Precision:
    if name in TRITON_FLOAT_WIDE:
        return Precision.WIDE
    if name in TRITON_FLOAT_LOW:
        return Precision.LOW
    return Precision.UNKNOWN


# --- precision of kernel values ----------------------------------------------------------------

#: Elementwise functions: the result has the promoted type of all their arguments.
_ELEMENTWISE = frozenset(TL + n for n in (
    "abs", "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "sigmoid",
    "maximum", "minimum", "clamp", "fma", "math.exp", "math.exp2", "math.log", "math.log2",
    "math.sqrt", "math.rsqrt", "math.abs", "math.fma",
))
#: Shape, reduction and ``*_like`` functions: the result has the type of the first argument.
_FIRST_ARG = frozenset(TL + n for n in (
    "trans", "permute", "reshape", "view", "broadcast_to", "expand_dims", "ravel", "flip", "sum",
    "cumsum", "cumprod", "softmax", "zeros_like", "ones_like", "full_like",
))
#: ``tl.max``/``tl.min`` convert float inputs narrower than 32 bits to fp32 before reducing
#: (``standard.py``), so their result is fp32 (checked with triton 3.9.0).
_WIDENING_REDUCTIONS = frozenset({TL + "max", TL + "min"})
_METHODS_FIRST_ARG = frozenset(n.rsplit(".", 1)[-1] for n in _FIRST_ARG)
_LOADS = frozenset({TL + "load", TL + "atomic_add", TL + "atomic_max", TL + "atomic_min", TL + "atomic_xchg"})
#: Constructors and the position of their ``dtype`` argument.
_CONSTRUCTORS = {TL + "zeros": 1, TL + "full": 2}


def precision_of(ctx: "FileContext", expr: ast.AST) -> Precision:
    """How wide the float type of kernel value ``expr`` provably is."""
    return _Inference(ctx).of(expr) or Precision.UNKNOWN


class _Inference:
    def __init__(self, ctx: "FileContext", depth: int = 24):
        self.ctx = ctx
        self.budget = depth
        self.visiting: set[int] = set()

    def of(self, expr: ast.AST) -> Precision | None:
        """None only for a definition already being evaluated (a loop-carried cycle)."""
        if self.budget <= 0:
            return Precision.UNKNOWN
        self.budget -= 1
        try:
            return self._of(expr)
        finally:
            self.budget += 1

    def _of(self, expr: ast.AST) -> Precision | None:
        if isinstance(expr, ast.Constant):
            return Precision.SCALAR if isinstance(expr.value, (int, float)) else Precision.UNKNOWN
        if isinstance(expr, ast.Name):
            return self._name(expr)
        if isinstance(expr, ast.BinOp):
            return self._binop(expr.op, [self.of(expr.left), self.of(expr.right)])
        if isinstance(expr, ast.UnaryOp):
            return self.of(expr.operand)
        if isinstance(expr, ast.IfExp):
            return _one_of([self.of(expr.body), self.of(expr.orelse)])
        if isinstance(expr, ast.Subscript):  # x[:, None]
            return self.of(expr.value)
        if isinstance(expr, ast.Call):
            return self._call(expr)
        return Precision.UNKNOWN

    def _binop(self, op: ast.operator, operands: list[Precision | None]) -> Precision | None:
        tensors = [p for p in operands if p is not Precision.SCALAR]
        if not tensors:
            return Precision.SCALAR
        if any(p is None for p in tensors):
            known = [p for p in tensors if p is not None]
            return self._binop(op, known) if known else None
        if isinstance(op, (ast.Div, ast.Mod)):
            # Triton computes float / and % in fp32 (fp64 if an operand is fp64); int / int too.
            return Precision.WIDE if Precision.UNKNOWN not in tensors else Precision.UNKNOWN
        if Precision.WIDE in tensors:
            return Precision.WIDE
        return _one_of(tensors)

    def _call(self, call: ast.Call) -> Precision | None:
        ctx = self.ctx
        name = ctx.call_name(call)
        func = call.func
        if isinstance(func, ast.Attribute) and name is None:  # a method of a kernel value
            if func.attr == "to":
                return self._cast(conversion_target(ctx, call))
            if func.attr in _METHODS_FIRST_ARG:
                return self.of(func.value)
            return Precision.UNKNOWN
        if name in _LOADS:
            return Precision.LOADED
        if name in _WIDENING_REDUCTIONS:
            return Precision.WIDE
        if name == TL + "cast":
            return self._cast(conversion_target(ctx, call))
        if name in _CONSTRUCTORS:
            position = _CONSTRUCTORS[name]
            dtype = argument(call, "dtype")
            if dtype is None and len(call.args) > position:
                dtype = call.args[position]
            return precision_of_dtype(triton_dtype(ctx, dtype))
        if name == TL + "dot":
            acc = call.args[2] if len(call.args) > 2 else argument(call, "acc")
            if acc is not None:
                return self.of(acc)
            out = argument(call, "out_dtype")
            return Precision.WIDE if out is None else precision_of_dtype(triton_dtype(ctx, out))
        if name == TL + "where" and len(call.args) == 3:
            return self._binop(ast.Add(), [self.of(call.args[1]), self.of(call.args[2])])
        if name in _ELEMENTWISE or name in _FIRST_ARG:
            args = call.args[:1] if name in _FIRST_ARG else call.args
            return self._binop(ast.Add(), [self.of(a) for a in args]) if args else Precision.UNKNOWN
        return Precision.UNKNOWN

    def _cast(self, dtype: ast.expr | None) -> Precision:
        return precision_of_dtype(triton_dtype(self.ctx, dtype))

    def _name(self, name: ast.Name) -> Precision | None:
        found: list[Precision | None] = []
        for definition in reaching_definitions(self.ctx, name):
            key = id(definition.node)
            if key in self.visiting:
                found.append(None)
                continue
            self.visiting.add(key)
            try:
                found.append(self._definition(definition, name))
            finally:
                self.visiting.discard(key)
        known = [p for p in found if p is not None]
        if not found:
            return Precision.UNKNOWN
        return _one_of(known) if known else None

    def _definition(self, definition: Definition, name: ast.Name) -> Precision | None:
        node = definition.node
        if isinstance(node, ast.arg):
            kernel = self.ctx.kernel_of(node)
            if kernel is not None and kernel.is_constexpr(node, self.ctx.qualname):
                return Precision.SCALAR
            return self._parameter(node, kernel)
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            # The target read as a use: the value it had before this statement.
            return self._binop(node.op, [self.of(node.target), self.of(node.value)])
        if definition.value is None:
            return Precision.UNKNOWN
        return self.of(definition.value)

    def _parameter(self, parameter: ast.arg, kernel) -> Precision | None:
        """A helper's parameter is what its callers in the file pass (all must agree); a
        function a kernel generator wraps gets loaded tensor elements. Anything else is unknown."""
        if kernel is None:
            return Precision.UNKNOWN
        function = kernel.node
        if calls_graph.generated_elementwise(self.ctx, function):
            position = kernel.params.index(parameter)
            return Precision.UNKNOWN if position in calls_graph.scalar_positions(self.ctx, function) else Precision.LOADED
        passed = calls_graph.arguments_for(self.ctx, parameter)
        if not passed:
            return Precision.UNKNOWN
        found = [self.of(value) for value in passed]
        known = [p for p in found if p is not None]
        if known and set(known) == {Precision.LOW, Precision.LOADED}:
            return Precision.LOADED  # half at some call sites, the tensor's type at the others
        return _one_of(known) if known else None


def _one_of(values: list[Precision]) -> Precision:
    """A value that is one of ``values``: known only if they all agree."""
    first = values[0] if values else Precision.UNKNOWN
    return first if all(v is first for v in values) else Precision.UNKNOWN


# --- the element type a kernel value is created with ---------------------------------------------

#: Constructors and the position of their ``dtype`` argument (``tl.zeros(shape, dtype)``).
_CREATED_WITH = {TL + "zeros": 1, TL + "full": 2}


def created_dtype(ctx: "FileContext", kernel, expr: ast.AST | None) -> tuple[str, str] | None:
    """``(dtype, how)``: the Triton element type kernel value ``expr`` is created with, and how
    that is known. ``tl.zeros``/``tl.full`` with a dtype, ``tl.dot(..., out_dtype=...)``,
    ``x.to(dtype)``; the dtype named literally (``tl.float16``, a module constant), or as
    ``ptr.dtype.element_ty`` of a pointer parameter whose host tensors the project shows all have
    one dtype (``how`` then names the tensor and where it is made). None otherwise."""
    if not isinstance(expr, ast.Call):
        return None
    name = ctx.call_name(expr)
    if name in _CREATED_WITH:
        dtype = argument(expr, "dtype")
        if dtype is None and len(expr.args) > _CREATED_WITH[name]:
            dtype = expr.args[_CREATED_WITH[name]]
    elif name == TL + "dot":
        dtype = argument(expr, "out_dtype")
    else:
        dtype = conversion_target(ctx, expr)
    if dtype is None:
        return None
    literal = triton_dtype(ctx, dtype)
    if literal is not None:
        return literal, "literal"
    return _element_type_of_parameter(ctx, kernel, dtype)


def _element_type_of_parameter(ctx: "FileContext", kernel, dtype: ast.expr) -> tuple[str, str] | None:
    """``P.dtype.element_ty`` for pointer parameter ``P``: the one dtype the project's launches pass."""
    from kernelint.model.dsl.triton import TORCH_TO_TRITON
    from kernelint.model.project.host import parameter_dtypes

    if not (isinstance(dtype, ast.Attribute) and dtype.attr == "element_ty" and isinstance(dtype.value, ast.Attribute)
            and dtype.value.attr == "dtype" and isinstance(dtype.value.value, ast.Name)) or kernel is None:
        return None
    parameter = dtype.value.value.id
    if parameter not in {p.arg for p in kernel.params}:
        return None
    host = parameter_dtypes(ctx.project, kernel, ctx, parameter)
    if not host.complete or len(host.known) != 1:
        return None
    (torch_name, where), = host.known.items()
    triton_name = TORCH_TO_TRITON.get(torch_name)
    if triton_name is None:
        return None
    return triton_name, f"the element type of `{parameter}`, a {torch_name} tensor made at {where}"
