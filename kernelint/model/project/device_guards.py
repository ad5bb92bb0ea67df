"""Whether a host statement runs with the current CUDA device set to its tensors' device.

Triton launches a kernel on the *current* device (``torch.cuda.current_device()``) and its current
stream, not on the device of the tensors it is given (``JITFunction.run`` in Triton 3.6:
``device = driver.active.get_current_device()``). Code whose tensors may sit on another GPU than
the current one (``device_map="auto"``, one process driving several GPUs) sets the device around
the launch. This module answers, read with ``ast``:

- ``guard_at(view, ctx, node)``: the statement, ``with`` block or decorator that sets the device
  for ``node`` inside its own function: ``with torch.cuda.device(x.device):`` (also
  ``device_of``, ``torch.cuda.stream``, ``torch.accelerator.device_index``, a device module's
  ``.device(...)`` as FlagGems spells it, ``torch_device_fn.device(x.device)``), a project helper
  that returns or enters one (fla's ``custom_device_ctx``, Liger's ``device_context``), a name
  bound to such a call, ``torch.cuda.set_device(...)`` earlier in the function, or a decorator of
  the function whose own body sets one (fla's ``@input_guard``).
- ``unguarded_path(view, ctx, node)``: None when ``node`` runs under a guard in its function or in
  every caller the project shows (up to ``_FRAMES`` frames); else the call chain, innermost first,
  that reaches it with no guard (empty when the function has no caller in the project: an entry
  point, called by users).
- ``guards_launches(view, ctx)``: the guards this file itself places around Triton launches (or
  the project guard helpers it uses): the file's authors expect tensors on any GPU.
- ``caller_tensor(ctx, function, expr)``: ``expr`` is a tensor the function was given (a
  parameter, or a view, copy or ``*_like`` of one), so it lives wherever its caller put it.

Unknown stays quiet: anything that looks like a device guard counts as one (a ``with`` whose call
reads a tensor's ``.device``, a decorator named ``*guard*`` or ``*device*`` that cannot be read).
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core import walk
from kernelint.model.core.walk import ancestors

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.project.view import ProjectView

#: Context managers that make a device current for their block (torch 2.x; ``torch.cuda.stream``
#: makes its stream's device current when it differs).
GUARD_CONTEXTS = frozenset({
    "torch.cuda.device", "torch.cuda.device_of", "torch.cuda._DeviceGuard", "torch.cuda.stream",
    "torch.cuda.StreamContext", "torch.xpu.device", "torch.xpu.device_of", "torch.xpu.stream",
    "torch.accelerator.device_index", "torch.npu.device", "torch.mlu.device", "torch.musa.device",
})
#: Calls that make a device current until changed again.
SET_DEVICE = frozenset({
    "torch.cuda.set_device", "torch.xpu.set_device", "torch.accelerator.set_device_index",
    "torch.accelerator.set_device_idx", "torch.cuda.set_stream", "torch.npu.set_device",
})
#: Not a guard: sets the default device of tensor factories only, never the current CUDA device
#: (torch/utils/_device.py, DeviceContext.__torch_function__).
NOT_A_GUARD = frozenset({"torch.device", "torch.set_default_device"})
#: Decorators that register a function as a PyTorch operator: whether the dispatcher sets the
#: device around a Python kernel was not checked, so launches under them are not judged.
OPERATOR_DECORATORS = frozenset({
    "torch.library.custom_op", "torch._library.custom_ops.custom_op", "torch.library.triton_op",
    "torch._library.triton.triton_op", "torch.library.impl", "torch.library.register_kernel",
})
#: Tensor methods and attributes that give another view or copy of the same tensor's data on
#: the same device.
_SAME_DEVICE_METHODS = frozenset({
    "contiguous", "view", "reshape", "flatten", "transpose", "t", "permute", "expand", "expand_as",
    "narrow", "squeeze", "unsqueeze", "clone", "detach", "view_as", "reshape_as", "float", "half",
    "bfloat16", "to", "type_as", "select", "movedim", "unflatten", "split", "chunk", "unbind", "T", "mT",
    "data", "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "as_strided", "repeat",
})
_LIKE_FACTORIES = frozenset({
    "torch.empty_like", "torch.zeros_like", "torch.ones_like", "torch.full_like", "torch.rand_like",
    "torch.randn_like", "torch.randint_like",
})
#: Parameters that never hold a caller's tensor.
_NOT_TENSOR_ANNOTATIONS = frozenset({"int", "float", "bool", "str"})
_FRAMES = 3
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def guard_at(view: "ProjectView | None", ctx: "FileContext", node: ast.AST) -> ast.AST | None:
    """The guard that sets the device for ``node`` within its own function (or the module, for
    module-level code), or None."""
    inner = True
    for ancestor in ancestors(node):
        if isinstance(ancestor, (ast.With, ast.AsyncWith)):
            for item in ancestor.items:
                if _guard_item(view, ctx, item.context_expr, loose=True):
                    return ancestor
        if isinstance(ancestor, _FUNCTIONS):
            if inner:
                found = _set_device_before(ctx, ancestor, node)
                if found is not None:
                    return found
            if _autograd_backward(ctx, ancestor):
                return ancestor
            for decorator in ancestor.decorator_list:
                if _guarding_decorator(view, ctx, decorator):
                    return decorator
            inner = False
        if isinstance(ancestor, ast.Lambda):
            inner = False
    return None


def under_operator_registration(ctx: "FileContext", node: ast.AST) -> bool:
    """A function around ``node`` is registered as a PyTorch operator (``@torch.library.custom_op``,
    ``triton_op``, ``impl``)."""
    for ancestor in ancestors(node):
        if isinstance(ancestor, _FUNCTIONS):
            for decorator in ancestor.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ctx.qualname(target) in OPERATOR_DECORATORS:
                    return True
    return False


def unguarded_path(view: "ProjectView | None", ctx: "FileContext", node: ast.AST,
                   frames: int = _FRAMES) -> list[tuple[ast.AST, "FileContext"]] | None:
    """None when ``node`` runs under a device guard in its function or in every caller the
    project shows; else the calls (innermost first) of one path that reaches it unguarded. A
    function with no caller in the project is an entry point (its callers are users): unguarded.
    Past ``frames`` frames the answer is "guarded" (unknown stays quiet)."""
    if guard_at(view, ctx, node) is not None:
        return None
    function = ctx.function_of(node)
    if function is None or view is None:
        return []
    if frames == 0:
        return None
    callers = view.callers_of(function, ctx)
    if not callers:
        return []
    for site in callers:
        if not _passes_caller_tensor(site):
            continue  # the caller made every tensor it passes: single-device code
        path = unguarded_path(view, site.ctx, site.node, frames - 1)
        if path is not None:
            return [(site.node, site.ctx), *path]
    return None


def guards_launches(view: "ProjectView | None", ctx: "FileContext", launches) -> list[ast.AST]:
    """The guards of this file that show its authors expect tensors on any GPU: strict guards
    (a device context, ``set_device`` or a project guard helper, never merely a ``with`` that
    reads a ``.device``) around this file's launches, or around the call of a function defined
    here that launches."""
    found: list[ast.AST] = []
    for launch in launches:
        guard = guard_at(view, ctx, launch.node)
        if guard is not None and _strict(view, ctx, guard):
            found.append(guard)
    return found


def caller_tensor(ctx: "FileContext", function: ast.AST | None, expr: ast.AST, depth: int = 4) -> ast.arg | None:
    """The parameter of ``function`` whose tensor ``expr`` is (the parameter itself, a view or
    copy of it, a ``*_like`` of it, a tensor made on its ``.device``), following plain
    assignments in the function; None when ``expr`` is not shown to be one."""
    if function is None or depth < 0:
        return None
    while True:
        if isinstance(expr, ast.Starred):
            expr = expr.value
        elif isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
            expr = expr.value
        elif isinstance(expr, ast.Attribute) and expr.attr in _SAME_DEVICE_METHODS:
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                and expr.func.attr in _SAME_DEVICE_METHODS:
            expr = expr.func.value
        elif isinstance(expr, ast.Call) and ctx.call_name(expr) in _LIKE_FACTORIES and expr.args:
            expr = expr.args[0]
        elif isinstance(expr, ast.Call) and _made_on_device_of(expr) is not None:
            expr = _made_on_device_of(expr)
        else:
            break
    if not isinstance(expr, ast.Name):
        return None
    parameter = _parameter(function, expr.id)
    if parameter is not None:
        return parameter if _may_be_tensor(parameter) else None
    for value in _assigned_in(function, expr.id):
        found = caller_tensor(ctx, function, value, depth - 1)
        if found is not None:
            return found
    return None


# --- guards ------------------------------------------------------------------------------------

def _guard_item(view, ctx, expr: ast.AST, loose: bool) -> bool:
    """``expr`` (a ``with`` item) makes a device current: a guard call, or a name bound to one in
    its function. ``loose`` also accepts any call that reads a tensor's device (``with
    my_ctx(x.device):``)."""
    if isinstance(expr, ast.Name):
        function = ctx.function_of(expr)
        return any(isinstance(value, ast.Call) and _guard_call(view, ctx, value, loose)
                   for value in _assigned_in(function, expr.id)) if function is not None else False
    return isinstance(expr, ast.Call) and _guard_call(view, ctx, expr, loose)


def _guard_call(view, ctx, call: ast.Call, loose: bool, depth: int = 2) -> bool:
    name = ctx.call_name(call)
    if name in NOT_A_GUARD:
        return False
    if name in GUARD_CONTEXTS:
        return True
    func = call.func
    # A device module's own context: `torch_device_fn.device(x.device)`, `backend.device(dev)`.
    if isinstance(func, ast.Attribute) and func.attr in ("device", "device_of") and (call.args or call.keywords):
        return True
    if _guard_factory(view, ctx, func, depth):
        return True
    return loose and any(_reads_device(arg) for arg in [*call.args, *(k.value for k in call.keywords)])


def _strict(view, ctx, guard: ast.AST) -> bool:
    """A guard that is a device context or ``set_device`` by name (not only a call reading a
    ``.device``, nor the autograd engine's own device around ``backward``)."""
    if isinstance(guard, _FUNCTIONS):
        return False
    if isinstance(guard, (ast.With, ast.AsyncWith)):
        return any(_guard_item(view, ctx, item.context_expr, loose=False) for item in guard.items)
    return True


def _guard_factory(view, ctx, func: ast.AST, depth: int) -> bool:
    """``func`` names a function of the project that returns a device context or enters one
    around a ``yield`` (a ``@contextmanager``)."""
    if depth <= 0:
        return False
    resolved = _function_for(view, ctx, func)
    if resolved is None:
        return False
    function, owner = resolved
    for node in walk.subtree(function):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call) \
                and _guard_call(view, owner, node.value, False, depth - 1):
            return True
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                isinstance(item.context_expr, ast.Call) and _guard_call(view, owner, item.context_expr, False, depth - 1)
                for item in node.items) and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in walk.subtree(node)):
            return True
    return False


def _guarding_decorator(view, ctx, decorator: ast.AST) -> bool:
    """A decorator whose own body sets the device around the call it wraps (fla's
    ``@input_guard``); one that cannot be read counts when its name says it guards."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = ctx.qualname(target) or (target.attr if isinstance(target, ast.Attribute)
                                    else target.id if isinstance(target, ast.Name) else "")
    resolved = _function_for(view, ctx, target)
    if resolved is None:
        last = name.rsplit(".", 1)[-1].lower()
        return "guard" in last or "device" in last
    function, owner = resolved
    for node in walk.subtree(function):
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                _guard_item(view, owner, item.context_expr, loose=False) for item in node.items):
            return True
        if isinstance(node, ast.Call) and owner.call_name(node) in SET_DEVICE:
            return True
    return False


def _autograd_backward(ctx, function: ast.AST) -> bool:
    """``function`` is the ``backward`` of a ``torch.autograd.Function``: PyTorch's autograd engine
    runs a CUDA node's backward on a worker thread of that node's device, which made the device
    current (``Engine::thread_init`` calls ``set_device``), so the device is set for it."""
    if function.name != "backward":
        return False
    owner = ctx.parent(function)
    if not isinstance(owner, ast.ClassDef):
        return False
    for base in owner.bases:
        name = ctx.qualname(base) or (base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", ""))
        if name in ("torch.autograd.Function", "torch.autograd.function.Function") or name.endswith("Function"):
            return True
    return False


def _passes_caller_tensor(site) -> bool:
    """The call at ``site`` passes a tensor (or a device) its own function was given; a call
    whose tensors the calling function made itself on the default device does not."""
    call, ctx = site.node, site.ctx
    function = ctx.function_of(call)
    if function is None:
        return True  # module-level code: not followed further, taken as reaching users
    if function.name.startswith("test"):
        return False  # a test makes its tensors on the device it runs on
    return any(caller_tensor(ctx, function, argument) is not None
               for argument in [*call.args, *(k.value for k in call.keywords)])


def _set_device_before(ctx, function: ast.AST, node: ast.AST) -> ast.Call | None:
    """A ``torch.cuda.set_device(...)`` (or a device module's ``.set_device``) in ``function``
    before ``node``."""
    line = getattr(node, "lineno", 0)
    for call in walk.subtree(function):
        if isinstance(call, ast.Call) and getattr(call, "lineno", line) < line and (
                ctx.call_name(call) in SET_DEVICE
                or (isinstance(call.func, ast.Attribute) and call.func.attr in ("set_device", "set_device_index"))):
            return call
    return None


def _function_for(view, ctx, func: ast.AST):
    """(the function ``func`` names, the model of its file): a function of this file, else a
    top-level function of the project."""
    if isinstance(func, ast.Name):
        local = [d for d in ctx.definitions(func.id, func) if isinstance(d.node, _FUNCTIONS)]
        if local:
            return local[0].node, ctx
    if view is None or not isinstance(func, (ast.Name, ast.Attribute)):
        return None
    dotted = view.absolute(ctx, func)
    if dotted is None:
        return None
    found = view.function_named(dotted)
    if found is not None:
        return found
    # A helper defined twice under `if`/`try` at module level (fla's custom_device_ctx per torch
    # version): the first definition stands for both.
    module_name, _, attribute = dotted.rpartition(".")
    other = view.context_of(module_name) if module_name else None
    if other is None:
        return None
    for node in walk.subtree(other.tree):
        if isinstance(node, _FUNCTIONS) and node.name == attribute and other.function_of(node) is None \
                and not isinstance(other.parent(node), ast.ClassDef):
            return node, other
    return None


def _reads_device(expr: ast.AST) -> bool:
    """``expr`` reads a tensor's device: ``x.device``, ``x.device.index``, ``x.get_device()``, or a
    name such as ``device`` or ``device_index``."""
    for node in walk.subtree(expr):
        if isinstance(node, ast.Attribute) and node.attr in ("device", "get_device"):
            return True
        if isinstance(node, ast.Name) and "device" in node.id.lower():
            return True
    return False


# --- caller tensors ----------------------------------------------------------------------------

def _made_on_device_of(call: ast.Call) -> ast.AST | None:
    """``t`` of ``torch.empty(..., device=t.device)``, or ``dev`` of ``torch.empty(...,
    device=dev)`` (a device the caller chose)."""
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg == "device" and isinstance(value, ast.Attribute) and value.attr == "device":
            return value.value
        if keyword.arg == "device" and isinstance(value, ast.Name):
            return value
    return None


def _parameter(function: ast.AST, name: str) -> ast.arg | None:
    args = function.args
    for parameter in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if parameter.arg == name:
            return parameter
    return None


def _may_be_tensor(parameter: ast.arg) -> bool:
    if parameter.arg in ("self", "cls", "ctx"):
        return False
    annotation = parameter.annotation
    return not (isinstance(annotation, ast.Name) and annotation.id in _NOT_TENSOR_ANNOTATIONS)


def _assigned_in(function: ast.AST | None, name: str) -> list[ast.AST]:
    """The values ``name = value`` binds in ``function`` (its own body, not nested functions)."""
    if function is None:
        return []
    values = []
    for node in walk.subtree(function):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            values.append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name \
                and node.value is not None:
            values.append(node.value)
    return values
