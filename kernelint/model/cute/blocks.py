"""Run-time blocks of a CuTe DSL function, and the Python state that crosses them.

The preprocessor rewrites each ``@cute.jit`` / ``@cute.kernel`` body: an ``if`` or ``while``
whose test is not ``cutlass.const_expr(...)`` (from CuTe DSL 4.1.0) and a ``for`` over
``range`` / ``cutlass.range`` become traced blocks (``scf.if``, ``scf.for``, ``scf.while``).
Names carried across such a block must exist before it and keep their type: a name first bound
inside the block is local to it (``NameError`` when read after it), and a Python container must
keep its structure (a list that grows on one path fails with ``TYPE_UNSTABLE_JOIN``, a dict that
gains a key with ``CONTAINER_STRUCTURE_CHANGED``, a set or a plain object cannot be carried at
all). Measured with nvidia-cutlass-dsl 4.8.1 by compiling without a GPU
(``benchmarks/cute_compile_only/python_state_across_dynamic_blocks.py``).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernelint.model.cute.static import is_const_expr, loop_kind
from kernelint.model.core.walk import ancestors, parent, subtree

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

#: Methods that change how many items a Python list, dict or set holds.
GROWING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "add"})
SHRINKING_METHODS = frozenset({"pop", "remove", "clear", "popitem", "discard"})
_CONTAINER_CALLS = frozenset({"list", "dict", "set"})


def is_dynamic_block(ctx: "FileContext", node: ast.AST, if_traced: bool = True) -> bool:
    """``node`` runs as a traced block: a ``for`` over ``range``/``cutlass.range``, or (when
    ``if_traced``: the target traces plain tests at run time) an ``if``/``while`` whose test is
    not ``cutlass.const_expr(...)``."""
    if isinstance(node, ast.For):
        return loop_kind(node) == "dynamic"
    if isinstance(node, (ast.If, ast.While)):
        return if_traced and not is_const_expr(ctx, node.test)
    return False


def dynamic_blocks_around(ctx: "FileContext", node: ast.AST, function: ast.AST, if_traced: bool = True) -> list[ast.AST]:
    """The run-time blocks of ``function`` whose body (or ``else``) holds ``node``, innermost
    first; the test of an ``if``/``while`` and the iterable of a ``for`` are outside their block."""
    found = []
    child = node
    for ancestor in ancestors(node):
        if ancestor is function:
            break
        if _in_body(ancestor, child) and is_dynamic_block(ctx, ancestor, if_traced):
            found.append(ancestor)
        child = ancestor
    return found


def bindings_in_dynamic_blocks(ctx: "FileContext", function: ast.AST, if_traced: bool = True) -> dict[str, list[ast.AST]]:
    """Each name bound in the body of a run-time block of ``function``, with the nodes that bind
    it there (in ``ast.walk`` order): only a read of one of these names can find all its
    bindings inside blocks, so a rule need not ask reaching definitions about any other. One pass over the kept node list; whether a node sits in a
    run-time body is decided once per node on the way up."""
    bound: dict[str, list[ast.AST]] = {}
    inside: dict[int, bool] = {id(function): False}

    def in_dynamic_body(node: ast.AST) -> bool:
        chain = []
        while id(node) not in inside:
            above = parent(node)
            if above is None:  # not under ``function``
                inside[id(node)] = False
                break
            if _in_body(above, node) and is_dynamic_block(ctx, above, if_traced):
                inside[id(node)] = True
                break
            chain.append(node)
            node = above
        verdict = inside[id(node)]
        for passed in chain:
            inside[id(passed)] = verdict
        return verdict

    name_class, load = ast.Name, ast.Load
    for node in subtree(function):
        cls = node.__class__
        if cls is name_class:  # most bindings, and most nodes are not: tested inline
            if node.ctx.__class__ is load:
                continue
            name = node.id
        elif cls in _OTHER_BINDERS and node is not function:
            name = _bound_name(node)
            if name is None:
                continue
        else:
            continue
        if in_dynamic_body(node):
            bound.setdefault(name, []).append(node)
    return bound


#: Nodes other than ``ast.Name`` that bind a name.
_OTHER_BINDERS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.alias, ast.ExceptHandler,
                            ast.MatchAs, ast.MatchStar})


def _bound_name(node: ast.AST) -> str | None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.alias):
        return (node.asname or node.name).split(".")[0]
    return node.name or None  # an except handler or a match capture


def _in_body(block: ast.AST, child: ast.AST) -> bool:
    """``child`` (a child node of ``block``) is one of its body's or ``else``'s statements: the
    test of an ``if``/``while`` and the target and iterable of a ``for`` are expressions."""
    return isinstance(child, ast.stmt) and isinstance(block, (ast.For, ast.If, ast.While))


@dataclass(frozen=True)
class ContainerKind:
    """What Python container a binding makes: ``kind`` is ``"list"``, ``"dict"`` or ``"set"``."""

    kind: str
    node: ast.AST


def container_made_by(ctx: "FileContext", value: ast.expr | None) -> ContainerKind | None:
    """The Python container ``value`` builds: a list, dict or set display or comprehension, or a
    call of the builtin ``list``/``dict``/``set``. Tuples are immutable and never change shape."""
    if isinstance(value, (ast.List, ast.ListComp)):
        return ContainerKind("list", value)
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return ContainerKind("dict", value)
    if isinstance(value, (ast.Set, ast.SetComp)):
        return ContainerKind("set", value)
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _CONTAINER_CALLS
            and not ctx.definitions(value.func.id, value)):
        return ContainerKind(value.func.id, value)
    return None


# --- register fragments indexed at run time ---------------------------------------------------

#: Methods of a tiled MMA / its thread slice that return a register fragment.
_FRAGMENT_METHODS = frozenset({
    "make_fragment_A", "make_fragment_B", "make_fragment_C", "partition_fragment_A", "partition_fragment_B",
    "partition_fragment_C",
})
def register_fragment_of(ctx: "FileContext", expr: ast.expr) -> ast.Call | None:
    """The call that makes ``expr`` a register fragment (``cute.make_rmem_tensor``,
    ``cute.make_fragment(_like)``, ``tiled_mma.make_fragment_A(...)``, ``partition_fragment_C``),
    through a name every binding of which is such a call; None otherwise."""
    from kernelint.model.core.calls import callee_name
    from kernelint.model.dsl.cute import REGISTER_FRAGMENTS

    if not isinstance(expr, ast.Name):
        return None
    definitions = ctx.definitions(expr.id, expr)
    if not definitions:
        return None
    found = None
    for definition in definitions:
        value = definition.value
        if not isinstance(value, ast.Call) or definition.kind != "assign":
            return None
        if ctx.call_name(value) not in REGISTER_FRAGMENTS and callee_name(value.func) not in _FRAGMENT_METHODS:
            return None
        found = found or value
    return found


def runtime_trip_count(ctx: "FileContext", loop: ast.For, function: ast.AST) -> ast.AST | None:
    """For a ``range``/``cutlass.range`` loop, the run-time value its bounds are computed from: a
    parameter of ``function`` annotated ``cutlass.Int32``-like (not ``Constexpr``). None when the
    bounds are constants of the trace (literals, ``Constexpr`` parameters, configuration on
    ``self``), which the compiler unrolls, and for bounds from a thread or block index, which
    usually pass through ``% C`` or ``min`` and which the compiler was seen to bound and unroll
    (``range(tidx % 8)`` over an 8-element fragment kept it in registers). ``unroll_full=True``
    does not help a run-time count: such a loop still left the fragment in local memory."""
    from kernelint.model.core.dataflow import reaches
    from kernelint.model.dsl.cute import INT_WRAPPERS

    if loop_kind(loop) != "dynamic":
        return None
    runtime_params = {
        a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)
        if a.annotation is not None and ctx.qualname(a.annotation) in INT_WRAPPERS - {"int"}
    }

    def runtime(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in runtime_params
                and any(d.kind == "param" for d in ctx.definitions(node.id, node)))

    def opaque(node: ast.AST) -> bool:
        # a call (``cute.size(frag)``: a static size, whatever its argument was built from),
        # a subscript or an attribute computes something else from what it reads
        return isinstance(node, (ast.Call, ast.Subscript, ast.Attribute))

    for bound in loop.iter.args:
        found = reaches(ctx, bound, runtime, prune=opaque)
        if found is not None:
            return found
    return None
