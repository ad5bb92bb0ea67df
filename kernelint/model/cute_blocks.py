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

from kernelint.model.cute_static import is_const_expr, loop_kind
from kernelint.model.walk import ancestors

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
        if is_dynamic_block(ctx, ancestor, if_traced) and _in_body(ancestor, child):
            found.append(ancestor)
        child = ancestor
    return found


def _in_body(block: ast.AST, child: ast.AST) -> bool:
    return any(child is statement for statement in (*block.body, *block.orelse))


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
