"""Host tensor facts: the dtype a kernel argument has, wherever the tensor was made.

A kernel's pointer parameter has the dtype of the tensor the host passes. The tensor is usually
made in the wrapper that launches the kernel (``torch.empty(..., dtype=torch.float32)``,
``torch.empty_like(x)``), converted on the way (``.float()``, ``.to(torch.bfloat16)``) or taken
from the wrapper's caller, in another module (``LigerRMSNormFunction.apply(x, w)`` ->
``forward(ctx, x, w)`` -> ``rms_norm_forward(x, w)``). ``dtypes_of`` follows the value through
those steps and answers with the dtypes it can be, each with the place that fixes it.

Unknown stays unknown: a value this cannot follow (a module attribute, a parameter whose callers
are out of reach, a call it cannot read) makes the answer incomplete, and rules that need "always
fp32" then stay silent. Nothing is guessed from names.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kernelint.model.core.calls import argument
from kernelint.model.core.dtype_names import torch_dtype
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.project.follow import ValueFollower

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel
    from kernelint.model.project.view import ProjectView

#: Caller frames followed from a wrapper's parameter to the code that made the tensor.
_FRAMES = 3
#: Expressions evaluated for one question (a guard against pathological code).
_BUDGET = 400

_ALLOCATORS_DEFAULT_FLOAT = frozenset({"torch.empty", "torch.zeros", "torch.ones", "torch.rand", "torch.randn",
                                       "torch.empty_strided"})
_ALLOCATORS_OTHER = frozenset({"torch.full", "torch.arange", "torch.tensor", "torch.as_tensor", "torch.randint",
                               "torch.linspace"})
_LIKE = frozenset({"torch.empty_like", "torch.zeros_like", "torch.ones_like", "torch.full_like", "torch.rand_like",
                   "torch.randn_like", "torch.clone"})
#: torch functions whose result has the dtype of their first tensor argument.
_FIRST_ARGUMENT = frozenset({"torch.transpose", "torch.permute", "torch.reshape", "torch.flatten", "torch.squeeze",
                             "torch.unsqueeze", "torch.narrow", "torch.select", "torch.contiguous", "torch.t",
                             "torch.movedim", "torch.as_strided"})
_JOINS = frozenset({"torch.cat", "torch.stack", "torch.concat", "torch.concatenate"})
#: Tensor methods that hand on the same dtype.
_KEEPING_METHODS = frozenset({
    "view", "reshape", "contiguous", "transpose", "permute", "t", "flatten", "unflatten", "squeeze", "unsqueeze",
    "expand", "expand_as", "narrow", "select", "clone", "detach", "cuda", "cpu", "view_as", "reshape_as",
    "as_strided", "repeat", "movedim", "swapaxes", "pin_memory", "requires_grad_", "__getitem__", "T", "mT",
    "data", "squeeze_", "unsqueeze_", "zero_", "fill_", "copy_",
    # pieces of the tensor, read as their elements (``for t in x.unbind(0)``)
    "split", "chunk", "unbind", "tensor_split",
})
_FIXED_METHODS = {"float": "float32", "half": "float16", "bfloat16": "bfloat16", "double": "float64",
                  "int": "int32", "long": "int64", "short": "int16", "bool": "bool", "byte": "uint8", "char": "int8"}
_NEW_METHODS = frozenset({"new_empty", "new_zeros", "new_ones", "new_full", "new_tensor"})
_DEVICE_KEYWORDS = frozenset({"device", "non_blocking", "copy", "memory_format"})
#: Calls that make a host tensor of the integers they are given (an address table).
_TABLE_CONSTRUCTORS = frozenset({"torch.tensor", "torch.as_tensor", "torch.asarray", "torch.LongTensor",
                                 "torch.stack", "torch.cat", "torch.concat", "torch.concatenate"})
#: Methods of a table that keep the integers it holds.
_TABLE_KEEPING_METHODS = frozenset({"to", "cuda", "contiguous", "long", "clone", "pin_memory", "view", "reshape",
                                    "flatten", "__getitem__"})


@dataclass
class DTypes:
    """The dtypes a value can have: each known one with where it is fixed (``path:line``);
    ``complete`` is False when some way the value can take was not followed."""

    known: dict[str, str] = field(default_factory=dict)
    complete: bool = True

    def add(self, other: "DTypes") -> None:
        for name, where in other.known.items():
            self.known.setdefault(name, where)
        self.complete = self.complete and other.complete

    @property
    def unknown(self) -> bool:
        return not self.known and not self.complete

    def only(self, names) -> bool:
        """Every way the value can take gives one of ``names`` (and at least one is known)."""
        return self.complete and bool(self.known) and set(self.known) <= set(names)


def _unknown() -> DTypes:
    return DTypes(complete=False)




class _Follow(ValueFollower):
    """The dtype evaluators (tensors, ``dtype=`` values, address tables) over the shared
    follower of parameters and calls."""

    def __init__(self, view: "ProjectView"):
        super().__init__(view, _BUDGET)
        #: Bindings being evaluated now: a cycle through them adds nothing.
        self.visiting: set[tuple[int, int, int]] = set()

    def _known(self, name: str | None, ctx: "FileContext", node: ast.AST) -> DTypes:
        if name is None:
            return _unknown()
        return DTypes({name: f"{self.view.display_path(ctx.path)}:{getattr(node, 'lineno', 1)}"})

    def of(self, ctx: "FileContext", expr: ast.AST | None, frames: int) -> DTypes:
        if expr is None or not self.spend():
            return _unknown()
        if isinstance(expr, ast.Name):
            return self._name(ctx, expr, frames)
        if isinstance(expr, ast.Attribute):
            if isinstance(expr.value, ast.Name) and expr.value.id == "self":
                return self._instance_attribute(ctx, expr, frames)
            return self.of(ctx, expr.value, frames) if expr.attr in _KEEPING_METHODS else _unknown()
        if isinstance(expr, ast.Subscript):
            return self.of(ctx, _picked(expr), frames)
        if isinstance(expr, ast.IfExp):
            found = self.of(ctx, expr.body, frames)
            found.add(self.of(ctx, expr.orelse, frames))
            return found
        if isinstance(expr, ast.Call):
            return self._call(ctx, expr, frames)
        return self._elements(ctx, expr, frames, self.of)

    def _elements(self, ctx: "FileContext", expr: ast.AST, frames: int, evaluate) -> DTypes:
        """A list, tuple or set of tensors, or a comprehension making one, stands for its
        elements (``groups[i]``, ``for a in groups``): what ``evaluate`` gives for each. An
        empty display says nothing by itself (``ptrs = []`` grown by ``append``)."""
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            if not expr.elts:
                return _unknown()
            found = DTypes()
            for element in expr.elts:
                found.add(evaluate(ctx, element.value if isinstance(element, ast.Starred) else element, frames))
            return found
        if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return evaluate(ctx, expr.elt, frames)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add) \
                and any(isinstance(side, _LIST_DISPLAYS) for side in (expr.left, expr.right)):
            found = evaluate(ctx, expr.left, frames)  # list concatenation
            found.add(evaluate(ctx, expr.right, frames))
            return found
        return _unknown()

    def _name(self, ctx: "FileContext", name: ast.Name, frames: int, evaluate=None) -> DTypes:
        evaluate = evaluate or self.of
        definitions = reaching_definitions(ctx, name)
        if not definitions:
            return _unknown()
        found = DTypes()
        for definition in definitions:
            node = definition.node
            key = (id(node), id(self.bound.get(id(node), (None, None))[1]), id(evaluate.__func__))
            if key in self.visiting:  # a binding reached again (``x = x.contiguous()`` in a loop)
                continue
            self.visiting.add(key)
            try:
                if isinstance(node, ast.arg):
                    found.add(self._parameter(ctx, node, frames, evaluate))
                elif definition.kind == "augassign":
                    found.add(self._augmented_list(ctx, name, node, frames, evaluate))
                elif definition.kind in ("loop", "opaque") and _iterated(ctx, node, name.id) is not None:
                    found.add(evaluate(ctx, _iterated(ctx, node, name.id), frames))
                elif definition.value is not None and definition.value is not name:
                    value = definition.value
                    if isinstance(value, (ast.List, ast.Tuple)) and definition.kind == "assign":
                        found.add(self._grown(ctx, name, value, frames, evaluate))
                    else:
                        found.add(evaluate(ctx, value, frames))
                else:
                    found.add(_unknown())
            finally:
                self.visiting.discard(key)
        return found

    def _augmented_list(self, ctx: "FileContext", name: ast.Name, node: ast.AugAssign, frames: int,
                        evaluate) -> DTypes:
        """``xs += [...]`` on a name bound to a list display in the same scope: the grown list
        (its display and every addition); anything else augmented is unknown."""
        displays = [d.value for d in ctx.definitions(name.id, name)
                    if d.kind == "assign" and isinstance(d.value, ast.List)]
        if not isinstance(node.op, ast.Add) or len(displays) != 1:
            return _unknown()
        return self._grown(ctx, name, displays[0], frames, evaluate)

    def _grown(self, ctx: "FileContext", name: ast.Name, display: ast.List | ast.Tuple, frames: int,
               evaluate) -> DTypes:
        """A name bound to a list display: its elements and what ``append``/``extend``/``+=``
        add to the name in its scope (``extend`` and ``+=`` add the elements of their argument,
        which ``evaluate`` reads as elements)."""
        added = [*display.elts, *ctx.list_growth(name)] if isinstance(display, ast.List) else list(display.elts)
        if not added:
            return _unknown()
        found = DTypes()
        for element in added:
            found.add(evaluate(ctx, element.value if isinstance(element, ast.Starred) else element, frames))
        if _element_stored(ctx, name):
            found.complete = False  # ``xs[i] = t``: an element this does not follow
        return found

    def _parameter(self, ctx: "FileContext", parameter: ast.arg, frames: int, evaluate=None) -> DTypes:
        """What a host function's parameter holds: what the call being evaluated binds it to
        (its default included), else what every caller passes, ``frames`` callers up;
        ``evaluate`` reads the passed expression (a tensor by default, or a ``dtype=`` value)."""
        return _union(self.parameter(ctx, parameter, frames, evaluate or self.of))

    def _instance_attribute(self, ctx: "FileContext", attribute: ast.Attribute, frames: int) -> DTypes:
        """``self.w``: what the methods of the enclosing class assign to ``self.w`` (a buffer made
        in ``__init__``). Only for a class with no base class: an ``nn.Module``'s parameters and
        buffers change dtype with ``model.to(...)``/``.half()``, so what ``__init__`` made says
        nothing there. Assignments from outside the class are not seen."""
        owner = next((a for a in ctx.ancestors(attribute) if isinstance(a, ast.ClassDef)), None)
        if owner is None or any(not (isinstance(b, ast.Name) and b.id == "object") for b in owner.bases):
            return _unknown()
        values = [
            node.value for node in ast.walk(owner)
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
            and any(isinstance(t, ast.Attribute) and t.attr == attribute.attr and isinstance(t.value, ast.Name)
                    and t.value.id == "self" for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
        ]
        if not values:
            return _unknown()
        found = DTypes()
        for value in values:
            found.add(self.of(ctx, value, frames))
        return found

    def addresses(self, ctx: "FileContext", expr: ast.AST | None, frames: int) -> DTypes:
        """The dtypes of the tensors whose addresses host value ``expr`` holds: ``t.data_ptr()``,
        and tables of them (``torch.tensor([a.data_ptr() for a in group])``, a list grown with
        ``ptrs.append(a.data_ptr())``), through names, parameters and project functions as
        ``of`` goes. Any other integer (a literal, an offset added to an address) is unknown."""
        if expr is None or not self.spend():
            return _unknown()
        if isinstance(expr, ast.Name):
            return self._name(ctx, expr, frames, self.addresses)
        if isinstance(expr, ast.Subscript):
            return self.addresses(ctx, _picked(expr), frames)
        if isinstance(expr, ast.IfExp):
            found = self.addresses(ctx, expr.body, frames)
            found.add(self.addresses(ctx, expr.orelse, frames))
            return found
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            # ``x.data_ptr() + offset``: an address inside ``x``, whatever the offset
            sides = [expr.left, expr.right] if isinstance(expr.op, ast.Add) else [expr.left]
            pointers = [side for side in sides if _is_data_ptr(side)]
            if len(pointers) == 1:
                return self.of(ctx, pointers[0].func.value, frames)
        if not isinstance(expr, ast.Call):
            return self._elements(ctx, expr, frames, self.addresses)
        func = expr.func
        if _is_data_ptr(expr):
            return self.of(ctx, func.value, frames)
        name = ctx.call_name(expr)
        if name in _TABLE_CONSTRUCTORS:
            data = expr.args[0] if expr.args else argument(expr, "data") or argument(expr, "tensors")
            return self.addresses(ctx, data, frames)
        if isinstance(func, ast.Attribute) and name is None:
            if func.attr in _TABLE_KEEPING_METHODS and not any(torch_dtype(ctx, a) not in (None, "int64")
                                                               for a in [*expr.args, argument(expr, "dtype")]
                                                               if a is not None):
                return self.addresses(ctx, func.value, frames)
            return _unknown()
        return self._returned(ctx, expr, frames, self.addresses)

    def _dtype_argument(self, ctx: "FileContext", expr: ast.expr | None, frames: int) -> DTypes:
        """What a ``dtype=`` argument names: a literal, ``x.dtype``, or a name bound to one."""
        if expr is None:
            return _unknown()
        literal = torch_dtype(ctx, expr)
        if literal is not None:
            return self._known(literal, ctx, expr)
        if isinstance(expr, ast.Attribute) and expr.attr == "dtype":
            return self.of(ctx, expr.value, frames)
        if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
            return self._first_truthy(ctx, expr.values, frames)
        if isinstance(expr, ast.Name):
            parameters = [d.node for d in reaching_definitions(ctx, expr) if isinstance(d.node, ast.arg)]
            if parameters:
                return self._parameter(ctx, parameters[0], frames, self._dtype_argument)
            found = DTypes()
            values = list(ctx.values_of(expr))
            for value in values:
                found.add(self._dtype_argument(ctx, value, frames) if value is not None else _unknown())
            return found if values else _unknown()
        return _unknown()

    def _first_truthy(self, ctx: "FileContext", operands: list[ast.expr], frames: int) -> DTypes:
        """``a or b`` as a dtype: ``a`` where it is surely a dtype (a dtype is never falsy),
        else what either can give; a ``None`` operand is skipped."""
        found = DTypes()
        for operand in operands:
            if isinstance(operand, ast.Constant) and operand.value is None:
                continue
            value = self._dtype_argument(ctx, operand, frames)
            found.add(value)
            if value.complete and value.known:
                return found
            found.complete = True
        found.complete = False
        return found

    def _call(self, ctx: "FileContext", call: ast.Call, frames: int) -> DTypes:
        name = ctx.call_name(call)
        dtype = argument(call, "dtype")
        if name in _ALLOCATORS_DEFAULT_FLOAT or name in _ALLOCATORS_OTHER:
            if dtype is not None:
                return self._dtype_argument(ctx, dtype, frames)
            return self._known("float32", ctx, call) if name in _ALLOCATORS_DEFAULT_FLOAT else _unknown()
        if name in _LIKE:
            if dtype is not None:
                return self._dtype_argument(ctx, dtype, frames)
            return self.of(ctx, call.args[0] if call.args else argument(call, "input"), frames)
        if name in _FIRST_ARGUMENT:
            return self.of(ctx, call.args[0] if call.args else None, frames)
        if name in _JOINS:
            tensors = call.args[0] if call.args else argument(call, "tensors")
            if isinstance(tensors, (ast.List, ast.Tuple)) and tensors.elts:
                return self.of(ctx, tensors.elts[0], frames)
            return _unknown()
        func = call.func
        if isinstance(func, ast.Attribute) and name is None:
            return self._method(ctx, call, func, dtype, frames)
        return self._returned(ctx, call, frames)

    def _method(self, ctx: "FileContext", call: ast.Call, func: ast.Attribute, dtype, frames: int) -> DTypes:
        method = func.attr
        if method in _FIXED_METHODS and not call.args:
            return self._known(_FIXED_METHODS[method], ctx, call)
        if method in _NEW_METHODS:
            return self._dtype_argument(ctx, dtype, frames) if dtype is not None else self.of(ctx, func.value, frames)
        if method == "to" or method == "type":
            return self._conversion(ctx, call, func, dtype, frames)
        if method == "view" and len(call.args) == 1 and torch_dtype(ctx, call.args[0]) is not None:
            return self._known(torch_dtype(ctx, call.args[0]), ctx, call)  # a reinterpreting view
        if method in _KEEPING_METHODS:
            return self.of(ctx, func.value, frames)
        return _unknown()

    def _conversion(self, ctx: "FileContext", call: ast.Call, func: ast.Attribute, dtype, frames: int) -> DTypes:
        if dtype is not None:
            return self._dtype_argument(ctx, dtype, frames)
        for arg in call.args:
            if torch_dtype(ctx, arg) is not None or (isinstance(arg, ast.Attribute) and arg.attr == "dtype"):
                return self._dtype_argument(ctx, arg, frames)
        device_only = all(
            (isinstance(a, ast.Constant) and isinstance(a.value, str))
            or (isinstance(a, ast.Attribute) and a.attr == "device")
            for a in call.args
        ) and all(k.arg in _DEVICE_KEYWORDS for k in call.keywords)
        return self.of(ctx, func.value, frames) if device_only else _unknown()

    def _returned(self, ctx: "FileContext", call: ast.Call, frames: int, evaluate=None) -> DTypes:
        """A call of a project function: what ``evaluate`` (by default the dtypes) gives for
        what it returns, its parameters bound to this call's arguments."""
        return _union(self.returned(ctx, call, frames, evaluate or self.of))


def _union(answers: "list[DTypes | None] | None") -> DTypes:
    """The dtypes any of ``answers`` gives; incomplete where one is missing or none was read."""
    if answers is None:
        return _unknown()
    found = DTypes()
    for answer in answers:
        found.add(answer if answer is not None else _unknown())
    return found


def _is_data_ptr(expr: ast.AST) -> bool:
    """``x.data_ptr()``."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "data_ptr" \
        and not expr.args and not expr.keywords


def _element_stored(ctx: "FileContext", name: ast.Name) -> bool:
    """Some statement in the scope of ``name`` stores into an element of it (``xs[i] = t``)."""
    return any(isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
               and isinstance(node.value, ast.Name) and node.value.id == name.id
               for node in ast.walk(ctx.scope_of(name)))


def _picked(subscript: ast.Subscript) -> ast.expr:
    """``(a, b)[0]``: the element a constant index picks from a display; any other subscript
    stands for the value it indexes (an element of a list, a slice or element of a tensor)."""
    value, index = subscript.value, subscript.slice
    if (isinstance(value, (ast.Tuple, ast.List)) and isinstance(index, ast.Constant)
            and type(index.value) is int and not any(isinstance(e, ast.Starred) for e in value.elts)
            and -len(value.elts) <= index.value < len(value.elts)):
        return value.elts[index.value]
    return value


def _iterated(ctx: "FileContext", binding: ast.AST, name: str) -> ast.expr | None:
    """What the loop variable ``name`` bound by ``binding`` (a ``for`` statement, or the target of
    a comprehension) takes its values from: ``groups`` for ``for a in groups``, ``for i, a in
    enumerate(groups)`` and the first place of ``for a, b in zip(groups, others)``."""
    if isinstance(binding, (ast.For, ast.AsyncFor)):
        return _element_source(ctx, binding.target, binding.iter, name)
    comprehension = ctx.parent(binding)
    if isinstance(comprehension, ast.comprehension) and comprehension.target is binding:
        return _element_source(ctx, binding, comprehension.iter, name)
    return None


_LIST_DISPLAYS = (ast.List, ast.Tuple, ast.ListComp)


def _element_source(ctx: "FileContext", target: ast.expr, iterable: ast.expr, name: str) -> ast.expr | None:
    if isinstance(target, ast.Name):
        return iterable if target.id == name else None
    if not isinstance(target, (ast.Tuple, ast.List)) or not isinstance(iterable, ast.Call) \
            or not isinstance(iterable.func, ast.Name) or iterable.keywords \
            or any(isinstance(a, ast.Starred) for a in iterable.args) \
            or ctx.definitions(iterable.func.id, iterable):  # a project's own zip/enumerate
        return None
    if iterable.func.id == "enumerate" and len(iterable.args) == 1 and len(target.elts) == 2:
        sources = [None, iterable.args[0]]
    elif iterable.func.id == "zip" and len(iterable.args) == len(target.elts):
        sources = iterable.args
    else:
        return None
    for element, source in zip(target.elts, sources):
        if source is not None and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(element)):
            return _element_source(ctx, element, source, name)
    return None


def dtypes_of(view: "ProjectView", ctx: "FileContext", expr: ast.expr) -> DTypes:
    """The dtypes host expression ``expr`` (in the file of ``ctx``) can have."""
    return _Follow(view).of(ctx, expr, _FRAMES)


def parameter_dtypes(view: "ProjectView", kernel: "Kernel", kernel_ctx: "FileContext", parameter: str) -> DTypes:
    """The dtypes of the tensors the project's launches pass for ``parameter`` of ``kernel``;
    incomplete when a launch passes it in a way that cannot be read, or no launch is found."""
    return _over_launches(view, kernel, kernel_ctx, parameter, dtypes_of)


def addresses_of(view: "ProjectView", ctx: "FileContext", expr: ast.expr) -> DTypes:
    """The dtypes of the tensors whose addresses host expression ``expr`` holds (``x.data_ptr()``
    or a table of such addresses)."""
    return _Follow(view).addresses(ctx, expr, _FRAMES)


def addressed_dtypes(view: "ProjectView", kernel: "Kernel", kernel_ctx: "FileContext", parameter: str) -> DTypes:
    """The dtypes of the tensors whose addresses the project's launches pass in ``parameter`` of
    ``kernel``: one address (``x.data_ptr()``) or a table of them (the int64 pointer tables of
    grouped GEMM and MoE kernels). Incomplete when a launch passes anything else, or none is
    found."""
    return _over_launches(view, kernel, kernel_ctx, parameter, addresses_of)


def _over_launches(view, kernel, kernel_ctx, parameter: str, read) -> DTypes:
    """``read(view, ctx, passed)`` joined over every launch's argument for ``parameter``;
    unknown when there is no launch, or a launch does not pass it."""
    sites = view.launches_of(kernel, kernel_ctx)
    if not sites:
        return _unknown()
    found = DTypes()
    for site in sites:
        passed = site.launch.bound_arguments().get(parameter)
        found.add(read(view, site.ctx, passed) if passed is not None else _unknown())
    return found


def loaded_dtypes(view: "ProjectView", ctx: "FileContext", kernel: "Kernel", expr: ast.expr) -> DTypes:
    """The dtypes of the host tensors whose elements kernel value ``expr`` is loaded from: each
    ``tl.load`` feeding it, its pointer's base parameters, and what every launch passes for them.
    Incomplete when a load's base cannot be read or some launch cannot be followed."""
    from kernelint.model.index.masks import loads_feeding
    from kernelint.model.triton.memory import base_parameters

    loads = loads_feeding(ctx, expr)
    if not loads:
        return _unknown()
    found = DTypes()
    for load in loads:
        pointer = load.args[0] if load.args else argument(load, "pointer")
        bases = base_parameters(ctx, kernel, pointer) if pointer is not None else frozenset()
        if not bases:
            found.add(_unknown())
        for parameter in sorted(bases):
            found.add(parameter_dtypes(view, kernel, ctx, parameter))
    return found
