"""Host code around CuTe DSL compiles: whether what ``cute.compile`` returns outlives the call of
the function that compiles it (kept in a cache, returned, bound to a global), whether that
function memoizes itself, whether it launches what it compiled, and whether the arguments it
compiles for are the tensors its caller passes in (a per-request path) rather than tensors it
allocates (a test or a benchmark over shapes)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core.calls import callee_name
from kernelint.model.core.calls_graph import arguments_for, call_sites
from kernelint.model.core.dataflow import reaches
from kernelint.model.core.reaching import walk_value
from kernelint.model.core.walk import parent, subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

#: Decorators that run a function once per distinct argument tuple.
_MEMOIZERS = frozenset({"functools.cache", "functools.lru_cache", "functools.cached_property"})
_DEPTH = 8


def memoized(ctx: "FileContext", function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``function`` is wrapped by a memoizing decorator (``@functools.cache``,
    ``@lru_cache(maxsize=None)``, a project's ``@cache``-named decorator)."""
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if ctx.qualname(target) in _MEMOIZERS:
            return True
        name = callee_name(target)
        if name is not None and "cache" in name.lower():
            return True
    return False


def _bound_name(ctx: "FileContext", call: ast.Call) -> str | None:
    """The plain name ``call``'s result is assigned to (``compiled = cute.compile(...)``)."""
    statement = ctx.statement_of(call)
    if isinstance(statement, ast.Assign) and statement.value is call and len(statement.targets) == 1:
        target = statement.targets[0]
        return target.id if isinstance(target, ast.Name) else None
    if isinstance(statement, ast.AnnAssign) and statement.value is call and isinstance(statement.target, ast.Name):
        return statement.target.id
    return None


def result_kept(ctx: "FileContext", call: ast.Call) -> bool:
    """What ``call`` returns outlives the function it runs in: it is stored into a subscript or an
    attribute (``cache[key] = ...``, ``self._fn = ...``), directly or through the name it is
    bound to, put into a container (``cache.setdefault(key, fn)``, ``fns.append(fn)``), returned
    or yielded, or bound to a ``global``/``nonlocal`` name. Also True when its statement is not a
    plain assignment or call the function can be seen to drop."""
    statement = ctx.statement_of(call)
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in targets):
            return True
    elif isinstance(statement, (ast.Return, ast.Expr)) and not _called_directly(call):
        return True
    function = ctx.function_of(call)
    name = _bound_name(ctx, call)
    if function is None:
        return True
    if name is None:
        return not _called_directly(call)
    for node in subtree(function):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return True
        if isinstance(node, (ast.Return, ast.Yield)) and node.value is not None and _names(node.value, name):
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and _names(node.value, name):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in targets):
                return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not function and any(
            isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)
        ):
            return True  # captured by a closure that outlives the call
        if isinstance(node, ast.Call) and node is not call and any(
            isinstance(a, ast.Name) and a.id == name for a in [*node.args, *(k.value for k in node.keywords)]
        ):
            return True  # handed to another function (a cache's setdefault, a list's append, a wrapper)
    return False


def _names(expr: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def _called_directly(call: ast.Call) -> bool:
    holder = parent(call)
    return isinstance(holder, ast.Call) and holder.func is call


def result_called(ctx: "FileContext", call: ast.Call, outside_loops: bool = False) -> bool:
    """The function that runs ``call`` also calls what it returns: ``cute.compile(...)(args)``
    or ``compiled = cute.compile(...)`` then ``compiled(args)``. With ``outside_loops``, a
    function that calls it inside a loop (one compile for many launches) does not count."""
    function = ctx.function_of(call)
    if function is None:
        return False
    name = _bound_name(ctx, call)
    for node in subtree(function):
        if not isinstance(node, ast.Call):
            continue
        if node.func is call or (name is not None and isinstance(node.func, ast.Name) and node.func.id == name):
            if outside_loops and ctx.loops_of(node):
                return False
            return True
    return False


#: Calls that wrap a framework tensor as a CuTe tensor for a compile or a launch.
_TENSOR_WRAPPERS = frozenset({"from_dlpack"})


def caller_tensor(ctx: "FileContext", function: ast.FunctionDef | ast.AsyncFunctionDef,
                  expr: ast.expr) -> str | None:
    """The parameter of ``function`` holding a tensor whose value ``expr`` passes on: a parameter
    annotated ``torch.Tensor`` that ``expr`` is or is computed from, or any parameter wrapped by
    ``from_dlpack(...)`` on the way (``from_dlpack(q).mark_layout_dynamic()``). Tensors made by a
    ``torch.*`` call (``torch.randn(M, N)``: a test or a benchmark over shapes), fake tensors and
    scalars do not count. None when there is none."""
    parameters = {a.arg: a for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)
                  if a.arg not in ("self", "cls")}
    found: list[str] = []

    def is_parameter(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in parameters
                and any(d.kind == "param" for d in ctx.definitions(node.id, node)))

    def walk(start: ast.expr, wrapped: bool) -> None:
        def descend(node: ast.AST) -> bool:
            if isinstance(node, ast.Call):
                if callee_name(node.func) in _TENSOR_WRAPPERS:
                    if not wrapped:
                        for argument in node.args[:1]:
                            walk(argument, True)
                    return False
                qualname = ctx.call_name(node) or ""
                if qualname.startswith(("torch.", "cutlass.", "numpy.")):
                    return False
                if wrapped:
                    # a method of the tensor (``q.contiguous()``, ``q.view(...)``) keeps its data;
                    # a call that takes a value as an argument makes something new from it
                    if isinstance(node.func, ast.Attribute):
                        walk_value(ctx, node.func.value, descend, _DEPTH)
                    return False
                return True
            if is_parameter(node):
                annotation = parameters[node.id].annotation
                if wrapped or (annotation is not None and ctx.qualname(annotation) == "torch.Tensor"):
                    found.append(node.id)
                return False
            return isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Starred, ast.keyword))

        walk_value(ctx, start, descend, _DEPTH)

    walk(expr, False)
    return next((name for name in found if not _allocated_by_every_caller(ctx, parameters[name])), None)


def _allocated_by_every_caller(ctx: "FileContext", parameter: ast.arg) -> bool:
    """Every call site of the file passes, for ``parameter``, a tensor computed by a ``torch.*``
    call (``torch.randn(m, k)``, a ``.t()`` of one): a test helper fed the tensors its test made,
    not a per-request path. False when the function has no call site in the file."""
    passed = arguments_for(ctx, parameter)
    if not passed:
        return False
    allocates = lambda node: isinstance(node, ast.Call) and (ctx.call_name(node) or "").startswith("torch.")  # noqa: E731
    return all(reaches(ctx, value, allocates) is not None for value in passed)


def test_only(ctx: "FileContext", function: ast.FunctionDef | ast.AsyncFunctionDef, depth: int = 3) -> bool:
    """``function`` is a pytest test (``test_*``) or is called, in this file, only from tests and
    from helpers that only tests call (a test's ``_run_gemm``)."""
    if function.name.startswith("test_"):
        return True
    sites = call_sites(ctx, function)
    if not sites or depth <= 0:
        return False
    callers = [ctx.function_of(site) for site in sites]
    return all(caller is not None and caller is not function and test_only(ctx, caller, depth - 1)
               for caller in callers)
