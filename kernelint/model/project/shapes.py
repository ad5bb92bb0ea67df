"""Host shape facts: the symbolic size of a host integer and the symbolic shape of a host tensor,
wherever they are made (the wrapper, a helper it calls, the caller that passes them).

Sizes are ``Poly``s (``kernelint.model.index.symexpr``) over *host symbols*. A host symbol is a
value the code reads at run time, named after the text that reads it (``B`` in
``B, T, H = q.shape``, ``x.shape[0]``, ``len(cu_seqlens)``) and tagged with how it grows:

- ``data``: grows with the batch: the leading dimension of a tensor (``x.shape[0]``, the first
  name unpacked from a shape, ``len(x)``) or an element count (``x.numel()``);
- ``dim``: any other dimension read from a tensor (heads, sequence in a ``(B, T, ...)`` layout,
  hidden size): a runtime size, but not per call;
- ``datadep``: a value read from the data itself (``.item()``, ``.tolist()``, ``int(t.max())``):
  no static bound at all;
- ``param``: an integer parameter of a host function whose callers could not be read.

Tensors are followed through ``torch.empty/zeros/ones/full/rand*``, ``*_like``, ``new_*``,
``view``/``reshape``, ``transpose``/``permute``/``t()``, ``contiguous``/``to``/dtype methods,
``unsqueeze``/``squeeze``, integer and slice subscripts and ``narrow``; a tensor parameter of a
wrapper has symbolic dimensions read where the wrapper unpacks its shape. Integers are followed
through names, arithmetic, ``triton.cdiv``, ``next_power_of_2``, ``min``/``max``, ``.stride(i)``
of a tensor of known shape, and into callers (``_FRAMES`` deep, through ``ctx.project``, so
reads of other files are recorded). Unknown stays unknown (None): nothing is guessed from names.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.core.calls import argument
from kernelint.model.dsl import triton
from kernelint.model.index import symexpr as sx
from kernelint.model.index.symexpr import Poly
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.project.follow import ValueFollower
from kernelint.model.core.walk import subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.project.view import ProjectView

#: How a host symbol grows (see module doc), from least to most.
DIM, DATA, DATADEP = "dim", "data", "datadep"
PARAM = "param"
#: A meta-parameter a grid function reads (``META["BLOCK"]``): a tuning constant.
META = "meta"

#: Caller frames followed from a parameter to what its callers pass.
_FRAMES = 2
_BUDGET = 600
#: Callers read for one parameter before it is left opaque.
_MAX_CALLERS = 8
#: Bindings of a tensor name read before it is left unknown (they must all give one shape).
_MAX_REACHING = 3
#: A return of a project helper that is not the tuple a caller unpacks.
_NOT_A_TUPLE = object()

_ALLOCATORS = frozenset({"torch.empty", "torch.zeros", "torch.ones", "torch.rand", "torch.randn", "torch.randint",
                         "torch.full"})
_LIKE = frozenset({"torch.empty_like", "torch.zeros_like", "torch.ones_like", "torch.full_like", "torch.rand_like",
                   "torch.randn_like", "torch.clone"})
_NEW = frozenset({"new_empty", "new_zeros", "new_ones", "new_full"})
#: Tensor methods that keep shape (and contiguity, except the views below).
_SAME_SHAPE = frozenset({"contiguous", "to", "cuda", "cpu", "float", "half", "bfloat16", "double", "int", "long",
                         "bool", "clone", "detach", "requires_grad_", "zero_", "fill_", "copy_", "type",
                         "pin_memory", "data", "abs", "neg", "exp", "sigmoid", "relu"})
_CDIV = frozenset({*triton.CDIVS, "cutlass.cute.ceil_div", "cdiv", "ceil_div", "div_up", "ceildiv"})
_NEXT_POW2 = frozenset({triton.NEXT_POWER_OF_2, "next_power_of_2", "next_power_of_two", "next_pow2"})
_DATADEP_METHODS = frozenset({"item", "tolist"})
#: Attributes only a tensor has: a parameter read so is a tensor.
_TENSOR_ATTRIBUTES = frozenset({"shape", "numel", "stride", "dtype", "device", "view", "reshape", "contiguous",
                                "is_contiguous", "size", "data_ptr", "element_size", "dim", "ndim", "transpose",
                                "permute"})


@dataclass(frozen=True)
class HostSymbol:
    label: str
    growth: str
    #: ``path:line`` where it is read.
    where: str
    #: Read as the last (innermost) dimension of a tensor: a feature or hidden size.
    last: bool = False


#: Host symbol name -> what it is. Names carry path and position, so one table serves all files.
SYMBOLS: dict[str, HostSymbol] = {}


@dataclass(frozen=True)
class Tensor:
    """A host tensor's symbolic shape (None for a dimension not known) and whether its strides
    are the contiguous ones."""

    shape: tuple[Poly | None, ...]
    contiguous: bool
    where: str
    #: The element count when the shape is not known (``x.numel()`` of a parameter).
    count: Poly | None = None
    #: The strides when they are known without being the contiguous ones (a piece of
    #: ``xy.chunk(2, dim=-1)`` keeps ``xy``'s).
    strides: tuple[Poly | None, ...] | None = None

    def numel(self) -> Poly | None:
        if self.count is not None:
            return self.count
        total = sx.ONE
        for dim in self.shape:
            if dim is None:
                return None
            total = total * dim
        return total

    def stride(self, axis: int) -> Poly | None:
        if self.strides is not None and len(self.strides) == len(self.shape) \
                and -len(self.shape) <= axis < len(self.shape):
            return self.strides[axis]
        if not self.contiguous or not -len(self.shape) <= axis < len(self.shape):
            return None
        total = sx.ONE
        for dim in self.shape[axis % len(self.shape) + 1:]:
            if dim is None:
                return None
            total = total * dim
        return total


def _symbol(ctx: "FileContext", node: ast.AST, label: str, growth: str, suffix: str = "",
            last: bool = False) -> Poly:
    where = f"{ctx.path}:{getattr(node, 'lineno', 0)}"
    name = f"h:{where}:{getattr(node, 'col_offset', 0)}{suffix}:{label}"
    if name not in SYMBOLS:
        if len(SYMBOLS) > 200_000:
            SYMBOLS.clear()
        SYMBOLS[name] = HostSymbol(label, growth, where, last)
    return sx.sym(name)


def label(name: str) -> str:
    found = SYMBOLS.get(name)
    if found is not None:
        return found.label
    atom = sx.atom_of(name)
    if atom is not None and atom.op == "floordiv":  # x.numel() // N: the rows of a reshape(-1, N)
        divisor = sx.render(atom.args[1], label)
        if len(atom.args[1].terms) > 1 or any(len(m) > 1 for m, _ in atom.args[1].terms):
            divisor = f"({divisor})"
        return f"({sx.render(atom.args[0], label)} // {divisor})"
    if atom is not None:
        inner = ", ".join(sx.render(a, label) for a in atom.args)
        return {"np2": f"next_power_of_2({inner})"}.get(atom.op, f"{atom.op}({inner})")
    return name


def render(poly: Poly) -> str:
    return sx.render(poly, label).replace("*", " × ")


def _text(node: ast.AST, limit: int = 40) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Follow(ValueFollower):
    """Sizes and shapes of host values; parameters, callers and project-function returns are
    followed by ``ValueFollower`` (``project/follow.py``), shared with the host dtypes."""

    def __init__(self, view: "ProjectView | None"):
        super().__init__(view, _BUDGET)
        #: The name a direct size read is assigned to (``HV = v.shape[2]``): its label.
        self.hint: str | None = None

    def _named(self, text: str) -> str:
        hint, self.hint = self.hint, None
        return hint or text

    # --- integers ----------------------------------------------------------------------------

    def size(self, ctx: "FileContext", expr: ast.AST | None, frames: int) -> Poly | None:
        if expr is None or not self.spend():
            return None
        if isinstance(expr, ast.Constant):
            return sx.const(expr.value) if isinstance(expr.value, int) and not isinstance(expr.value, bool) else None
        if isinstance(expr, ast.Name):
            return self._name_size(ctx, expr, frames)
        if isinstance(expr, ast.BinOp):
            return self._binop(ctx, expr, frames)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
            inner = self.size(ctx, expr.operand, frames)
            return -inner if inner is not None else None
        if isinstance(expr, ast.Subscript):
            return self._subscript_size(ctx, expr, frames)
        if isinstance(expr, ast.Call):
            return self._call_size(ctx, expr, frames)
        if isinstance(expr, ast.IfExp):
            body, orelse = self.size(ctx, expr.body, frames), self.size(ctx, expr.orelse, frames)
            return sx.maximum(body, orelse) if body is not None and orelse is not None else None
        return None

    def _binop(self, ctx, expr: ast.BinOp, frames: int) -> Poly | None:
        left, right = self.size(ctx, expr.left, frames), self.size(ctx, expr.right, frames)
        if left is None or right is None:
            return None
        return sx.from_operator(expr.op, left, right)

    def _name_size(self, ctx, name: ast.Name, frames: int) -> Poly | None:
        definitions = ctx.definitions(name.id, name)
        if not definitions:
            return None
        reaching = reaching_definitions(ctx, name) or definitions
        found: list[Poly] = []
        for definition in reaching:
            node = definition.node
            if isinstance(node, ast.arg):
                value = self._parameter_size(ctx, node, frames)
            elif isinstance(node, ast.Assign) and definition.value is None:
                value = self._unpacked(ctx, node, name.id, frames)
            elif definition.value is not None and definition.value is not name and definition.kind == "assign":
                self.hint = name.id if _direct_read(definition.value) else None
                value = self.size(ctx, definition.value, frames)
                self.hint = None
            else:
                value = None
            if value is None:
                return None
            found.append(value)
        unique = list(dict.fromkeys(found))
        return unique[0] if len(unique) == 1 else sx.maximum(*unique)

    def _unpacked(self, ctx, node: ast.Assign, name: str, frames: int) -> Poly | None:
        """``B, T, H = q.shape`` (or ``q.size()``, ``q.shape[:3]``): the dimension ``name``
        takes."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], (ast.Tuple, ast.List)):
            return None
        names = node.targets[0].elts
        index = next((i for i, e in enumerate(names) if isinstance(e, ast.Name) and e.id == name), None)
        if index is None:
            return None
        starred = [i for i, e in enumerate(names) if isinstance(e, ast.Starred)]
        if starred:
            return self._unpacked_after_star(ctx, node, name, index, starred, frames)
        value = node.value
        if isinstance(value, ast.Tuple) and value.elts and isinstance(value.elts[0], ast.Starred):
            # B, T, H, K, V = *k.shape, v.shape[-1]
            rank = len(names) - (len(value.elts) - 1)
            source = _shape_source(value.elts[0].value)
            if source is None or any(isinstance(e, ast.Starred) for e in value.elts[1:]):
                return None
            if index >= rank:
                self.hint = name
                found = self.size(ctx, value.elts[index - rank + 1], frames)
                self.hint = None
                return found
            tensor = self.tensor(ctx, source, frames)
            if tensor is not None and len(tensor.shape) == rank and tensor.shape[index] is not None:
                return tensor.shape[index]
            return _symbol(ctx, node, name, DATA if index == 0 else DIM, f"#{index}", last=index == rank - 1)
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) and value.slice.lower is None:
            value = value.value
        source = _shape_source(value)
        if source is None:
            if isinstance(value, ast.Call):  # BLOCK_SIZE, num_warps = calculate_settings(n)
                return self._returned(ctx, value, frames, element=(index, len(names)))
            return None
        tensor = self.tensor(ctx, source, frames)
        if tensor is not None and len(tensor.shape) == len(names) and tensor.shape[index] is not None:
            return tensor.shape[index]
        whole = value is node.value or (isinstance(node.value, ast.Subscript) and node.value.slice.upper is None)
        return _symbol(ctx, node, name, DATA if index == 0 else DIM, f"#{index}",
                       last=whole and index == len(names) - 1)

    def _unpacked_after_star(self, ctx, node: ast.Assign, name: str, index: int, starred: list[int],
                             frames: int) -> Poly | None:
        """``*batch, N = x.shape``: a name after the one starred target is a dimension counted
        from the end (``N`` is ``x.shape[-1]``, the feature dimension); one before it, from the
        start. The starred names themselves are lists of sizes, not a size."""
        names = node.targets[0].elts
        source = _shape_source(node.value)
        if source is None or len(starred) != 1 or index == starred[0]:
            return None
        axis = index if index < starred[0] else index - len(names)
        tensor = self.tensor(ctx, source, frames)
        if tensor is not None and tensor.shape and -len(tensor.shape) <= axis < len(tensor.shape) \
                and tensor.shape[axis] is not None:
            return tensor.shape[axis]
        return _symbol(ctx, node, name, DATA if axis == 0 else DIM, f"#{axis}", last=axis == -1)

    def _parameter_size(self, ctx, parameter: ast.arg, frames: int) -> Poly | None:
        found = self.parameter(ctx, parameter, frames, self.size, _MAX_CALLERS)
        if id(parameter) in self.bound:  # bound by the call being evaluated: its value, known or not
            return found[0]
        if not found or any(v is None for v in found):
            return _symbol(ctx, parameter, parameter.arg, PARAM)
        unique = list(dict.fromkeys(found))
        return unique[0] if len(unique) == 1 else sx.maximum(*unique)

    def _subscript_size(self, ctx, expr: ast.Subscript, frames: int) -> Poly | None:
        source = _shape_source(_bound_shape(ctx, expr.value))
        if source is None:
            if _grid_meta(ctx, expr.value):  # META["BLOCK_M"] in a grid lambda or function
                return _symbol(ctx, expr, ast.unparse(expr), META)
            return None
        index = ctx.resolve_int(expr.slice)
        if index is None:
            return None
        return self._dimension(ctx, source, index, expr, frames)

    def _dimension(self, ctx, source: ast.expr, index: int, node: ast.AST, frames: int) -> Poly | None:
        tensor = self.tensor(ctx, source, frames)
        if tensor is not None and -len(tensor.shape) <= index < len(tensor.shape):
            dim = tensor.shape[index]
            if dim is not None:
                return dim
        last = index == -1 or (tensor is not None and index == len(tensor.shape) - 1)
        anchor = _parameter_of(ctx, source)  # x.shape[0] of a parameter: one symbol wherever read
        return _symbol(ctx, anchor or node, self._named(f"{_text(source, 24)}.shape[{index}]"),
                       DATA if index == 0 else DIM, f"#{index}" if anchor else "", last=last)

    def _call_size(self, ctx, call: ast.Call, frames: int) -> Poly | None:
        name = ctx.call_name(call)
        func = call.func
        simple = func.id if isinstance(func, ast.Name) else (func.attr if isinstance(func, ast.Attribute) else None)
        if name in _CDIV or (name is None and simple in _CDIV):
            if len(call.args) == 2:
                a, b = self.size(ctx, call.args[0], frames), self.size(ctx, call.args[1], frames)
                return sx.cdiv(a, b) if a is not None and b is not None else None
            return None
        if name == "math.ceil" and len(call.args) == 1 and isinstance(call.args[0], ast.BinOp) \
                and isinstance(call.args[0].op, ast.Div):
            a, b = self.size(ctx, call.args[0].left, frames), self.size(ctx, call.args[0].right, frames)
            return sx.cdiv(a, b) if a is not None and b is not None else None
        if name in _NEXT_POW2 or simple in _NEXT_POW2:
            inner = self.size(ctx, call.args[0], frames) if len(call.args) == 1 else None
            return sx.next_power_of_2(inner) if inner is not None else None
        if isinstance(func, ast.Name) and func.id in ("min", "max") and call.args and not call.keywords:
            values = [self.size(ctx, a, frames) for a in call.args]
            if func.id == "min":
                known = [v for v in values if v is not None]
                # min(x, 65535) is bounded whatever x is
                return sx.minimum(*known) if known and (len(known) == len(values) or any(v.is_const for v in known)) else None
            return sx.maximum(*values) if all(v is not None for v in values) else None
        if isinstance(func, ast.Name) and func.id == "len" and len(call.args) == 1:
            tensor = self.tensor(ctx, call.args[0], frames)
            if tensor is not None and tensor.shape and tensor.shape[0] is not None:
                return tensor.shape[0]
            return _symbol(ctx, call, self._named(f"len({_text(call.args[0], 24)})"), DATA)
        if isinstance(func, ast.Name) and func.id == "int" and len(call.args) == 1:
            inner = call.args[0]
            if _reads_data(inner):
                return _symbol(ctx, call, _text(inner), DATADEP)
            return self.size(ctx, inner, frames)
        if isinstance(func, (ast.Name, ast.Attribute)) and name is None or isinstance(func, ast.Name):
            returned = self._returned(ctx, call, frames)
            if returned is not None:
                return returned
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method in _DATADEP_METHODS:
                return _symbol(ctx, call, _text(func.value), DATADEP)
            if method == "size" and len(call.args) == 1:
                index = ctx.resolve_int(call.args[0])
                return self._dimension(ctx, func.value, index, call, frames) if index is not None else None
            if method == "numel" and not call.args:
                tensor = self.tensor(ctx, func.value, frames)
                numel = tensor.numel() if tensor is not None else None
                anchor = _parameter_of(ctx, func.value)
                return numel if numel is not None else _symbol(
                    ctx, anchor or call, f"{_text(func.value, 24)}.numel()", DATA, "#numel" if anchor else "")
            if method == "stride" and len(call.args) == 1:
                index = ctx.resolve_int(call.args[0])
                tensor = self.tensor(ctx, func.value, frames)
                stride = tensor.stride(index) if tensor is not None and index is not None else None
                return stride if stride is not None else _symbol(
                    ctx, call, f"{_text(func.value, 24)}.stride({ast.unparse(call.args[0])})", DIM)
        return None

    def _returned(self, ctx, call: ast.Call, frames: int, element: tuple[int, int] | None = None) -> Poly | None:
        """A call of a host function of the project (``get_block_size(n)``): what it returns,
        its parameters bound to this call's arguments; with ``element`` ``(i, n)``, item ``i`` of
        the ``n``-tuple every return gives (``return BLOCK_SIZE, num_warps``)."""
        values = self._through_callee(ctx, call, frames, element, self.size)
        if values is None or any(v is None for v in values):
            return None
        unique = list(dict.fromkeys(values))
        return unique[0] if len(unique) == 1 else sx.maximum(*unique)

    def _through_callee(self, ctx, call: ast.Call, frames: int, element: tuple[int, int] | None, read):
        """``read(callee_ctx, value, frames)`` of each value the project function ``call`` calls
        returns (item ``element[0]`` of an ``element[1]``-tuple), its parameters bound to this
        call's arguments; None when the callee or its returns cannot be read."""
        if element is None:
            return self.returned(ctx, call, frames, read)
        at, width = element

        def item(callee_ctx, value, left):
            if not isinstance(value, ast.Tuple) or len(value.elts) != width \
                    or any(isinstance(e, ast.Starred) for e in value.elts):
                return _NOT_A_TUPLE
            return read(callee_ctx, value.elts[at], left)

        found = self.returned(ctx, call, frames, item)
        return None if found is None or any(v is _NOT_A_TUPLE for v in found) else found

    # --- tensors -----------------------------------------------------------------------------

    def tensor(self, ctx: "FileContext", expr: ast.AST | None, frames: int) -> Tensor | None:
        if expr is None or not self.spend():
            return None
        where = f"{ctx.path}:{getattr(expr, 'lineno', 0)}"
        if isinstance(expr, ast.Name):
            return self._name_tensor(ctx, expr, frames)
        if isinstance(expr, ast.Attribute):
            if expr.attr in ("T", "mT"):
                inner = self.tensor(ctx, expr.value, frames)
                return _reordered(inner, (1, 0), where) if inner is not None and len(inner.shape) == 2 else None
            return self.tensor(ctx, expr.value, frames) if expr.attr in ("data",) else None
        if isinstance(expr, ast.Subscript):
            return self._sliced(ctx, expr, frames)
        if isinstance(expr, ast.Call):
            return self._call_tensor(ctx, expr, frames)
        if isinstance(expr, ast.IfExp):  # either branch may run: the one that reads more dimensions
            found = [t for t in (self.tensor(ctx, expr.body, frames), self.tensor(ctx, expr.orelse, frames)) if t]
            return max(found, key=lambda t: sum(d is not None for d in t.shape)) if found else None
        return None

    def _name_tensor(self, ctx, name: ast.Name, frames: int) -> Tensor | None:
        reaching = reaching_definitions(ctx, name) or ctx.definitions(name.id, name)
        if not reaching or len(reaching) > _MAX_REACHING:
            return None
        found = [self._definition_tensor(ctx, name, definition, frames) for definition in reaching]
        if len(found) == 1 or any(t is None for t in found):
            return found[0] if len(found) == 1 else None
        # ``if x.stride(-1) != 1: x = x.contiguous()``: one shape whichever binding reaches
        if any(t.shape != found[0].shape or t.count is not found[0].count for t in found[1:]):
            return None
        strides = found[0].strides if all(t.strides == found[0].strides for t in found) else None
        return Tensor(found[0].shape, all(t.contiguous for t in found), found[0].where, found[0].count, strides)

    def _definition_tensor(self, ctx, name: ast.Name, definition, frames: int) -> Tensor | None:
        node = definition.node
        if isinstance(node, ast.arg):
            bound = self.bound.get(id(node))
            if bound is not None:
                return self.tensor(bound[0], bound[1], frames)
            return self._parameter_tensor(ctx, node)
        if definition.kind == "assign" and definition.value is not None and definition.value is not name:
            return self.tensor(ctx, definition.value, frames)
        if isinstance(node, ast.Assign) and definition.value is None:
            return self._unpacked_tensor(ctx, node, name.id, frames)
        return None

    def _unpacked_tensor(self, ctx, node: ast.Assign, name: str, frames: int) -> Tensor | None:
        """``x, y = xy.chunk(2, dim=-1)`` (or ``torch.chunk``, ``.split(size, dim)``): the piece
        ``name`` takes. Each piece is at most ``cdiv(size, chunks)`` (or ``size``) along the split
        dimension and keeps the others; it is contiguous only when split along the first."""
        if len(node.targets) != 1 or not isinstance(node.targets[0], (ast.Tuple, ast.List)) \
                or not isinstance(node.value, ast.Call):
            return None
        names = node.targets[0].elts
        if any(isinstance(e, ast.Starred) for e in names) or not any(
                isinstance(e, ast.Name) and e.id == name for e in names):
            return None
        call = node.value
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in ("chunk", "split"):
            # q, k = cast_and_contiguous(q, k): what a project helper returns in that place
            at = next(i for i, e in enumerate(names) if isinstance(e, ast.Name) and e.id == name)
            found = self._through_callee(ctx, call, frames, (at, len(names)), self.tensor)
            if not found or any(t is None or t.shape != found[0].shape or t.count is not found[0].count
                                for t in found):
                return None
            return Tensor(found[0].shape, all(t.contiguous for t in found), found[0].where, found[0].count,
                          found[0].strides if all(t.strides == found[0].strides for t in found) else None)
        if ctx.call_name(call) == "torch.chunk":
            source, pieces, dim = argument(call, "input", 0), argument(call, "chunks", 1), argument(call, "dim", 2)
        elif ctx.call_name(call) is None or not ctx.call_name(call).startswith("torch."):
            size_name = "chunks" if func.attr == "chunk" else "split_size"
            source, pieces, dim = func.value, argument(call, size_name, 0), argument(call, "dim", 1)
        else:
            return None
        inner = self.tensor(ctx, source, frames)
        amount = ctx.resolve_int(pieces) if pieces is not None else None
        axis = ctx.resolve_int(dim) if dim is not None else 0
        if inner is None or amount is None or amount <= 0 or axis is None \
                or not -len(inner.shape) <= axis < len(inner.shape) or inner.shape[axis] is None:
            return None
        shape = list(inner.shape)
        shape[axis] = sx.cdiv(shape[axis], sx.const(amount)) if func.attr == "chunk" else sx.const(amount)
        contiguous = inner.contiguous and axis % len(shape) == 0
        strides = None if contiguous else tuple(inner.stride(i) for i in range(len(shape)))
        return Tensor(tuple(shape), contiguous, f"{ctx.path}:{node.lineno}", strides=strides)

    def _parameter_tensor(self, ctx, parameter: ast.arg) -> Tensor | None:
        """A tensor parameter whose function unpacks its whole shape (``B, T, H = q.shape``)."""
        function = ctx.parent(ctx.parent(parameter))
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        for node in subtree(function):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], (ast.Tuple, ast.List))):
                continue
            value = node.value
            names = node.targets[0].elts
            if isinstance(value, ast.Tuple) and value.elts and isinstance(value.elts[0], ast.Starred):
                # B, T, H, K, V = *k.shape, v.shape[-1]: the first names are k's whole shape
                value = value.elts[0].value
                names = names[:len(names) - (len(node.value.elts) - 1)]
            source = _shape_source(value)
            if not (isinstance(source, ast.Name) and source.id == parameter.arg):
                continue
            if not names:
                return None
            if any(isinstance(e, ast.Starred) for e in names):
                break  # *batch, N = x.shape: the rank is not known, the element count still is
            shape = tuple(
                _symbol(ctx, node, e.id if isinstance(e, ast.Name) else f"{parameter.arg}.shape[{i}]",
                        DATA if i == 0 else DIM, f"#{i}", last=i == len(names) - 1)
                for i, e in enumerate(names)
            )
            return Tensor(shape, False, f"{ctx.path}:{node.lineno}")
        # a tensor (its function reads a tensor attribute of it) whose shape is never unpacked:
        # its element count is still one symbol wherever it is read
        if not any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == parameter.arg
                   and n.attr in _TENSOR_ATTRIBUTES for n in subtree(function)):
            return None
        return Tensor((), False, f"{ctx.path}:{parameter.lineno}",
                      count=_symbol(ctx, parameter, f"{parameter.arg}.numel()", DATA, "#numel"))

    def _sizes(self, ctx, call: ast.Call, frames: int, skip: int = 0) -> tuple[Poly | None, ...] | None:
        """The sizes an allocator or a view is given: ``f(a, b)`` or ``f((a, b))``."""
        args = call.args[skip:]
        if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
            args = list(args[0].elts)
        elif len(args) == 1 and not isinstance(args[0], ast.Constant):
            shape = self._shape_value(ctx, args[0], frames)
            if shape is not None:
                return shape
        if not args and argument(call, "size") is not None:
            size = argument(call, "size")
            args = list(size.elts) if isinstance(size, (ast.Tuple, ast.List)) else []
        if not args:
            return None
        sizes: list[Poly | None] = []
        for arg in args:
            if isinstance(arg, ast.Starred):  # new_empty(NK, *v.shape)
                shape = self._shape_value(ctx, arg.value, frames)
                if shape is None:
                    return None
                sizes.extend(shape)
            else:
                sizes.append(self.size(ctx, arg, frames))
        return tuple(sizes)

    def _shape_value(self, ctx, expr: ast.expr, frames: int) -> tuple[Poly | None, ...] | None:
        """A whole shape: ``x.shape``, ``x.size()``, a name bound to one, a literal tuple."""
        if isinstance(expr, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in expr.elts):
                return None
            return tuple(self.size(ctx, e, frames) for e in expr.elts)
        if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Slice) and expr.slice.step is None:
            whole = self._shape_value(ctx, expr.value, frames)  # x.shape[:-1]
            lower = ctx.resolve_int(expr.slice.lower) if expr.slice.lower is not None else 0
            upper = ctx.resolve_int(expr.slice.upper) if expr.slice.upper is not None else None
            if whole is None or lower is None or (expr.slice.upper is not None and upper is None):
                return None
            return whole[lower:upper]
        source = _shape_source(expr)
        if source is not None:
            tensor = self.tensor(ctx, source, frames)
            return tensor.shape if tensor is not None else None
        if isinstance(expr, ast.Name):
            reaching = reaching_definitions(ctx, expr)
            if len(reaching) == 1 and reaching[0].kind == "assign" and reaching[0].value is not None:
                return self._shape_value(ctx, reaching[0].value, frames)
        return None

    def _call_tensor(self, ctx, call: ast.Call, frames: int) -> Tensor | None:
        name = ctx.call_name(call)
        where = f"{ctx.path}:{call.lineno}"
        if name in _ALLOCATORS:
            sizes = self._sizes(ctx, call, frames)
            if name == "torch.full" and call.args:
                size = call.args[0]
                sizes = self._shape_value(ctx, size, frames)
            return Tensor(sizes, True, where) if sizes is not None else None
        if name == "torch.tensor" and call.args:
            literal = _literal_shape(call.args[0])
            return Tensor(literal, True, where) if literal is not None else None
        if name in _LIKE:
            # preserve_format: a copy of a permuted (dense) tensor keeps its strides, so the copy of
            # a tensor whose strides are not the contiguous ones is contiguous only when asked to be
            inner = self.tensor(ctx, call.args[0] if call.args else argument(call, "input"), frames)
            made = inner is not None and (inner.contiguous or _contiguous_format(ctx, call))
            return Tensor(inner.shape, made, where, inner.count) if inner is not None else None
        func = call.func
        if not isinstance(func, ast.Attribute) or name is not None and name.startswith("torch."):
            return None
        method, receiver = func.attr, func.value
        if method in _NEW:
            sizes = self._sizes(ctx, call, frames)
            return Tensor(sizes, True, where) if sizes is not None else None
        inner = self.tensor(ctx, receiver, frames)
        if inner is None:
            return None
        if method in _SAME_SHAPE:
            # clone keeps a dense permuted layout (preserve_format), like *_like: contiguous only
            # when its source is or when asked to be
            made = method == "contiguous" or (method == "clone" and _contiguous_format(ctx, call))
            if method == "clone" and not made and not inner.contiguous:
                return Tensor(inner.shape, False, where, inner.count)
            return Tensor(inner.shape, inner.contiguous or made, where, inner.count, None if made else inner.strides)
        if method in ("view", "reshape") and call.args:
            sizes = self._sizes(ctx, call, frames)
            if sizes is None:
                return None
            return Tensor(_fill_inferred(sizes, inner, call), inner.contiguous or method == "reshape", where)
        if method in ("transpose", "swapaxes", "permute", "movedim") and not _reordered_axes_read(ctx, call, inner):
            # x.transpose(dim, -1) with `dim` a parameter: the axes are not known, the count is
            numel = inner.numel()
            return Tensor((), False, where, numel) if numel is not None else None
        if method in ("transpose", "swapaxes") and len(call.args) == 2:
            a, b = ctx.resolve_int(call.args[0]), ctx.resolve_int(call.args[1])
            if a is None or b is None:
                return None
            rank = len(inner.shape)
            if not (-rank <= a < rank and -rank <= b < rank):
                return None
            order = list(range(rank))
            order[a], order[b] = order[b], order[a]
            return _reordered(inner, tuple(order), where)
        if method == "permute":
            order = [ctx.resolve_int(a) for a in (call.args[0].elts if len(call.args) == 1 and isinstance(
                call.args[0], (ast.Tuple, ast.List)) else call.args)]
            if None in order or sorted(o % max(len(inner.shape), 1) for o in order) != list(range(len(inner.shape))):
                return None
            return _reordered(inner, tuple(o % len(inner.shape) for o in order), where)
        if method == "t" and len(inner.shape) == 2:
            return _reordered(inner, (1, 0), where)
        if method == "unsqueeze" and len(call.args) == 1:
            at = ctx.resolve_int(call.args[0])
            if at is None:
                return None
            shape = list(inner.shape)
            shape.insert(at if at >= 0 else len(shape) + at + 1, sx.ONE)
            return Tensor(tuple(shape), inner.contiguous, where)
        if method == "flatten" and not call.args:
            return Tensor((inner.numel(),), inner.contiguous, where)
        if method == "narrow" and len(call.args) == 3:
            dim = ctx.resolve_int(call.args[0])
            if dim is None or not -len(inner.shape) <= dim < len(inner.shape):
                return None
            shape = list(inner.shape)
            shape[dim] = self.size(ctx, call.args[2], frames)
            return Tensor(tuple(shape), inner.contiguous and dim % len(shape) == 0, where)
        return None

    def _sliced(self, ctx, expr: ast.Subscript, frames: int) -> Tensor | None:
        """``x[a:b]``, ``x[:, i]``, ``x[None]``, ``x[..., ::k]``: a basic-indexing view. A slice of
        step ``k`` keeps ``cdiv(stop - start, k)`` elements (``x[::2]`` of ``N``: ``cdiv(N, 2)``;
        ``x[1::2]``: ``cdiv(N - 1, 2)``) at ``k`` times the stride; a negative constant start or
        stop counts from the end. Strides are carried where the sliced tensor's are known."""
        inner = self.tensor(ctx, expr.value, frames)
        if inner is None:
            return None
        parts = _without_ellipsis(expr.slice, len(inner.shape))
        if parts is None:
            return None
        shape: list[Poly | None] = []
        strides: list[Poly | None] = []
        contiguous = inner.contiguous
        axis = 0
        for part in parts:
            if isinstance(part, ast.Constant) and part.value is None:
                shape.append(sx.ONE)
                strides.append(None)  # any stride addresses a dimension of one
                continue
            if axis >= len(inner.shape):
                return None
            dim = inner.shape[axis]
            if isinstance(part, ast.Slice):
                step = ctx.resolve_int(part.step) if part.step is not None else 1
                if step is None or step <= 0:
                    return None
                lower = self._slice_end(ctx, part.lower, dim, sx.ZERO, frames)
                upper = self._slice_end(ctx, part.upper, dim, dim, frames)
                length = upper - lower if lower is not None and upper is not None else None
                shape.append(sx.cdiv(length, sx.const(step)) if length is not None and step > 1 else length)
                stride = inner.stride(axis)
                strides.append(stride * step if stride is not None else None)
                if step > 1 or axis > 0 and (part.lower is not None or part.upper is not None):
                    contiguous = False
            elif isinstance(part, ast.Constant) and isinstance(part.value, int) or isinstance(part, ast.Name):
                if axis > 0 and isinstance(part, ast.Name):
                    contiguous = False
            else:
                return None  # fancy indexing, masks
            axis += 1
        shape.extend(inner.shape[axis:])
        strides.extend(inner.stride(a) for a in range(axis, len(inner.shape)))
        where = f"{ctx.path}:{expr.lineno}"
        if all(s is not None for s in strides) and len(strides) == len(shape):
            made = Tensor(tuple(shape), True, where)
            contiguous = all(made.stride(a) is strides[a] for a in range(len(shape)))
            return Tensor(tuple(shape), contiguous, where, strides=None if contiguous else tuple(strides))
        if any(s is not None for s in strides) and not contiguous:
            return Tensor(tuple(shape), False, where, strides=tuple(strides))
        return Tensor(tuple(shape), contiguous, where)

    def _slice_end(self, ctx, bound: ast.expr | None, dim: Poly | None, default: Poly | None,
                   frames: int) -> Poly | None:
        """A slice's start or stop as an index into a dimension of ``dim`` elements: ``-k``
        counts from the end."""
        if bound is None:
            return default
        value = self.size(ctx, bound, frames)
        if value is not None and value.is_const and value.constant < 0:
            return dim + value if dim is not None else None
        return value

def _without_ellipsis(index: ast.expr, rank: int) -> list[ast.expr] | None:
    """The parts of a subscript, ``...`` replaced by as many full slices as it stands for
    (``x[..., ::2]`` of a 3D tensor: ``x[:, :, ::2]``); None when the rank is needed and unknown."""
    parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    ellipses = [i for i, p in enumerate(parts) if isinstance(p, ast.Constant) and p.value is Ellipsis]
    if not ellipses:
        return parts
    if len(ellipses) > 1 or not rank:
        return None
    indexing = sum(not (isinstance(p, ast.Constant) and p.value in (None, Ellipsis)) for p in parts)
    if indexing > rank:
        return None
    at = ellipses[0]
    return parts[:at] + [ast.Slice() for _ in range(rank - indexing)] + parts[at + 1:]


def _reordered(inner: Tensor, order: tuple[int, ...], where: str) -> Tensor:
    """A transpose or permute of ``inner``: dimension ``k`` is ``inner``'s ``order[k]``, with its
    stride where ``inner``'s are known (``q.t()`` of a contiguous ``(M, N)``: strides ``(1, N)``)."""
    shape = tuple(inner.shape[o] for o in order)
    strides = tuple(inner.stride(o) for o in order)
    if order == tuple(range(len(order))):
        return inner
    return Tensor(shape, False, where, strides=strides if all(s is not None for s in strides) else None)


def _contiguous_format(ctx: "FileContext", call: ast.Call) -> bool:
    """``memory_format=torch.contiguous_format`` is passed."""
    fmt = argument(call, "memory_format")
    return fmt is not None and ctx.qualname(fmt) == "torch.contiguous_format"


def _literal_shape(value: ast.expr) -> tuple[Poly, ...] | None:
    """The shape of ``torch.tensor([[1, 2], [3, 4]])``'s nested list or tuple literal of numbers:
    its lengths, level by level, when every level is as long as its siblings (a name inside may be
    a list itself: unknown)."""
    if not isinstance(value, (ast.List, ast.Tuple)):
        return None
    if not value.elts or not isinstance(value.elts[0], (ast.List, ast.Tuple)):
        numbers = all(isinstance(e, ast.Constant) and isinstance(e.value, (int, float, bool))
                      or isinstance(e, ast.UnaryOp) and isinstance(e.operand, ast.Constant) for e in value.elts)
        return (sx.const(len(value.elts)),) if numbers else None
    inner = [_literal_shape(e) for e in value.elts]
    if any(s is None or s != inner[0] for s in inner):
        return None
    return (sx.const(len(value.elts)),) + inner[0]


def _reordered_axes_read(ctx: "FileContext", call: ast.Call, inner: Tensor) -> bool:
    """The axes a transpose or permute moves are constants, on a tensor of known rank."""
    if not inner.shape:
        return False
    args = call.args[0].elts if len(call.args) == 1 and isinstance(call.args[0], (ast.Tuple, ast.List)) else call.args
    return bool(args) and all(ctx.resolve_int(a) is not None for a in args)


def _fill_inferred(sizes: tuple[Poly | None, ...], inner: Tensor, call: ast.Call) -> tuple[Poly | None, ...]:
    """A view's sizes with its one ``-1`` replaced by what the element count leaves."""
    minus = [i for i, s in enumerate(sizes) if s is not None and s.is_const and s.constant == -1]
    if len(minus) != 1:
        return sizes
    numel = inner.numel()
    rest = sx.ONE
    for i, s in enumerate(sizes):
        if i != minus[0]:
            if s is None:
                return tuple(None if i == minus[0] else s for i, s in enumerate(sizes))
            rest = rest * s
    filled = sx.floordiv(numel, rest) if numel is not None else None
    return tuple(filled if i == minus[0] else s for i, s in enumerate(sizes))


def _shape_source(expr: ast.AST) -> ast.expr | None:
    """The tensor of ``x.shape`` / ``x.size()``; None for anything else."""
    if isinstance(expr, ast.Attribute) and expr.attr == "shape":
        return expr.value
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "size" \
            and not expr.args and not expr.keywords:
        return expr.func.value
    return None


def shape_source(expr: ast.AST) -> ast.expr | None:
    """The tensor whose whole shape ``expr`` reads (``x.shape``, ``x.size()``); None otherwise."""
    return _shape_source(expr)


def dimension_read(expr: ast.AST) -> tuple[ast.expr, int] | None:
    """``(x, i)`` for ``x.shape[i]`` or ``x.size(i)`` with a literal ``i`` (``-1`` counts from the end)."""
    if isinstance(expr, ast.Subscript) and _shape_source(expr.value) is not None:
        source, index = _shape_source(expr.value), expr.slice
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "size" \
            and len(expr.args) == 1 and not expr.keywords:
        source, index = expr.func.value, expr.args[0]
    else:
        return None
    try:
        value = ast.literal_eval(index)
    except (ValueError, TypeError, SyntaxError):
        return None
    return (source, value) if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Unpacking:
    """One assignment that unpacks a tensor's shape into names: ``B, T, H = q.shape`` (or
    ``q.size()``), ``*batch, N = x.shape``, ``B, T, H, K, V = *k.shape, v.shape[-1]``."""

    #: The tensor whose shape is unpacked (``q``).
    tensor: ast.expr
    #: The names its dimensions take, in order (None for ``_``); with ``starred``, the names of the
    #: last dimensions, after a leading ``*batch`` that takes any number of them.
    names: tuple[str | None, ...]
    starred: bool = False
    #: ``..., V = *k.shape, v.shape[-1]``: the names the elements after the shape give, each with
    #: the expression it reads.
    rest: tuple[tuple[str, ast.expr], ...] = ()


def shape_unpacking(node: ast.AST) -> Unpacking | None:
    """The shape ``node`` unpacks into plain names (see ``Unpacking``); None for any other statement."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)):
        return None
    targets, value = node.targets[0].elts, node.value
    source = _shape_source(value)
    if source is not None:
        if all(isinstance(e, ast.Name) for e in targets):
            return Unpacking(source, tuple(None if e.id == "_" else e.id for e in targets))
        if len(targets) > 1 and isinstance(targets[0], ast.Starred) and all(isinstance(e, ast.Name) for e in targets[1:]):
            return Unpacking(source, tuple(None if e.id == "_" else e.id for e in targets[1:]), starred=True)
        return None
    if isinstance(value, ast.Tuple) and value.elts and isinstance(value.elts[0], ast.Starred) \
            and _shape_source(value.elts[0].value) is not None and all(isinstance(e, ast.Name) for e in targets) \
            and not any(isinstance(e, ast.Starred) for e in value.elts[1:]) and len(targets) >= len(value.elts) - 1:
        split = len(targets) - (len(value.elts) - 1)
        return Unpacking(_shape_source(value.elts[0].value),
                         tuple(None if e.id == "_" else e.id for e in targets[:split]),
                         rest=tuple((e.id, element) for e, element in zip(targets[split:], value.elts[1:])))
    return None


def _bound_shape(ctx: "FileContext", expr: ast.expr) -> ast.expr:
    """``x.shape`` for a name bound once to it (``shape = x.shape; shape[0]``), else ``expr``."""
    if isinstance(expr, ast.Name):
        reaching = reaching_definitions(ctx, expr)
        if len(reaching) == 1 and reaching[0].kind == "assign" and _shape_source(reaching[0].value) is not None:
            return reaching[0].value
    return expr


def _parameter_of(ctx: "FileContext", expr: ast.expr) -> ast.arg | None:
    """The parameter ``expr`` names when that is its only binding."""
    if not isinstance(expr, ast.Name):
        return None
    definitions = ctx.definitions(expr.id, expr)
    return definitions[0].node if len(definitions) == 1 and isinstance(definitions[0].node, ast.arg) else None


def _direct_read(value: ast.expr) -> bool:
    """``x.shape[i]``, ``x.size(i)``, ``len(x)``, ``t.item()``: one size read, nothing else."""
    if isinstance(value, ast.Subscript):
        return _shape_source(value.value) is not None
    if isinstance(value, ast.Call):
        func = value.func
        return (isinstance(func, ast.Name) and func.id in ("len", "int")) or (
            isinstance(func, ast.Attribute) and func.attr in ("size", "item", "tolist"))
    return False


def _grid_meta(ctx: "FileContext", value: ast.expr) -> bool:
    """``value`` is the parameter of a lambda or of a one-parameter function (a grid's META)."""
    if not isinstance(value, ast.Name):
        return False
    definitions = ctx.definitions(value.id, value)
    if len(definitions) != 1 or not isinstance(definitions[0].node, ast.arg):
        return False
    function = ctx.parent(ctx.parent(definitions[0].node))
    if isinstance(function, ast.Lambda):
        return True
    return isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(function.args.args) == 1 \
        and ctx.kernel_of(value) is None


def _reads_data(expr: ast.AST) -> bool:
    """``t.max()``, ``t.sum()``, ``t[i]`` of a tensor: a value computed from the data."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in (
        "max", "sum", "min", "amax", "item")


# --- public ------------------------------------------------------------------------------------

def size_of(view: "ProjectView | None", ctx: "FileContext", expr: ast.expr) -> Poly | None:
    """The symbolic value of host integer ``expr`` (in the file of ``ctx``), or None."""
    return _remembered(view, "size", ctx, expr, lambda: _Follow(view).size(ctx, expr, _FRAMES))


def tensor_of(view: "ProjectView | None", ctx: "FileContext", expr: ast.expr) -> Tensor | None:
    """The symbolic shape of host tensor ``expr``, or None when it cannot be read."""
    return _remembered(view, "tensor", ctx, expr, lambda: _Follow(view).tensor(ctx, expr, _FRAMES))


def _remembered(view, kind: str, ctx, expr, compute):
    """One answer per view, file and node: the rules of a file ask about the same launch
    arguments and grid axes again and again (a FlagGems run spent a fifth of its time here)."""
    if view is None:
        return compute()
    memo = view.__dict__.setdefault("_shape_answers", {})
    key = (kind, id(ctx), id(expr))
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def is_last_dimension(name: str) -> bool:
    """The host symbol was read as the last dimension of a tensor (a feature or hidden size)."""
    found = SYMBOLS.get(name)
    return found is not None and found.last


def rounded_up(poly: Poly) -> Poly | None:
    """The run-time size ``poly`` rounds up to a power of two, when ``poly`` is such a rounding
    (``next_power_of_2(n)``, ``max(16, next_power_of_2(n))``, through host helpers that return
    one); None when it is anything else or capped (``min(64, next_power_of_2(K))``)."""
    if len(poly.terms) != 1 or poly.terms[0][1] != 1 or len(poly.terms[0][0]) != 1:
        return None
    atom = sx.atom_of(poly.terms[0][0][0])
    if atom is None:
        return None
    if atom.op == "np2":
        runtime = any(growth(n) in (DATA, DIM, DATADEP, PARAM) for leaf in leaves(atom.args[0]) for n in leaf)
        return atom.args[0] if runtime else None
    if atom.op == "max":
        found = [r for r in (rounded_up(a) for a in atom.args) if r is not None]
        return found[0] if found else None
    return None


def growth(name: str) -> str | None:
    """How a host symbol grows (``data``, ``dim``, ``datadep``, ``param``); None for others."""
    found = SYMBOLS.get(name)
    return found.growth if found is not None else None


def leaves(poly: Poly) -> list[list[str]]:
    """For each monomial of ``poly``, the host symbols it multiplies, looking through ceiling and
    floor divisions by a constant and ``next_power_of_2`` (a tile count of ``B * H`` grows as
    ``B * H``) and leaving out what a constant bounds (``min(x, 65535)``, ``x % 4``)."""
    found: list[list[str]] = []
    for monomial, _ in poly.terms:
        options: list[list[str]] = [[]]
        for name in monomial:
            expanded = _expand(name, 4)
            options = [o + e for o in options for e in expanded]
        found.extend(options)
    return found


def factor_groups(poly: Poly) -> list[list[list[str]]]:
    """The ways ``poly`` grows: for each monomial (and each alternative of a ``max``), its
    factors, each as the host symbols it grows with. A plain symbol is its own factor; a tile
    count ``cdiv(B * T, 128)`` is one factor that grows with ``B`` and ``T``."""
    found: list[list[list[str]]] = []
    for monomial, _ in poly.terms:
        options: list[list[list[str]]] = [[]]
        for name in monomial:
            alternatives = _factor_alternatives(name)
            options = [o + ([a] if a else []) for o in options for a in alternatives]
        found.extend(options)
    return found


def _factor_alternatives(name: str) -> list[list[str]]:
    atom = sx.atom_of(name)
    if atom is not None and atom.op == "max":
        return [sorted({n for leaf in leaves(sx.from_table({m: c})) for n in leaf})
                for arg in atom.args for m, c in arg.terms] or [[]]
    return [sorted({n for leaf in _expand(name, 4) for n in leaf})]


def _expand(name: str, depth: int) -> list[list[str]]:
    atom = sx.atom_of(name)
    if atom is None:
        return [[name]] if name in SYMBOLS else [[]]
    if depth <= 0:
        return [[]]
    if atom.op == "np2":
        return leaves(atom.args[0]) or [[]]
    if atom.op in ("cdiv", "floordiv"):
        # a tile count grows as its numerator, less what the tile itself grows with
        # (cdiv(n, next_power_of_2(n)) is 1)
        divisor = {name for leaf in leaves(atom.args[1]) for name in leaf}
        return [[n for n in leaf if n not in divisor] for leaf in leaves(atom.args[0])] or [[]]
    if atom.op == "max":
        return [leaf for arg in atom.args for leaf in leaves(arg)] or [[]]
    if atom.op == "min":
        if any(a.is_const for a in atom.args):
            return [[]]
        return [leaf for arg in atom.args for leaf in leaves(arg)] or [[]]
    return [[]]

