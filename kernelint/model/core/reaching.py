"""Which bindings of a name may give one use of it its value (reaching definitions on
structured code). Shared by the dtype inference and the rules that read "the value a name has
here" (a ``grid`` rebound between two launches, a tensor view rebound before ``from_dlpack``)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core.memo import remembered
from kernelint.model.core.values import Definition
from kernelint.model.core.walk import ancestors, children, parent

if TYPE_CHECKING:
    from kernelint.model.context import FileContext


def reaching_definitions(ctx: "FileContext", use: ast.Name) -> list[Definition]:
    """The bindings of ``use.id`` that may give ``use`` its value.

    Within one function: the last binding that must run before ``use`` (an earlier statement of
    an enclosing block), every binding after it that may run first (inside branches or loops),
    and bindings later in a loop that encloses ``use`` (loop-carried). Bindings of an enclosing
    scope (module constants) are returned as they are. Answered once per use: the tree does
    not change while a file is checked."""
    return remembered(ctx, "reaching", use, lambda: _reaching_definitions(ctx, use))


def _reaching_definitions(ctx: "FileContext", use: ast.Name) -> list[Definition]:
    definitions = ctx.definitions(use.id, use)
    if not definitions or ctx.scope_of(definitions[0].node) is not ctx.scope_of(use):
        return definitions
    if any(isinstance(parent(d.node), ast.comprehension) for d in definitions):
        # A comprehension's variable is its own: it reaches uses inside it and nothing after it.
        inner = _comprehension_binding(definitions, use)
        if inner is not None:
            return [inner]
        definitions = [d for d in definitions if not isinstance(parent(d.node), ast.comprehension)]
        if not definitions:
            scope = ctx.scope_of(use)
            return [] if scope is ctx.tree else ctx.definitions(use.id, scope)
    loops = ctx.loops_of(use)
    before, carried, reaching = [], [], []
    for definition in definitions:
        if _binds_before(definition.node, use):
            before.append(definition)
        else:
            loop = next((loop for loop in loops if _contains(loop, definition.node)), None)
            if loop is not None:
                carried.append((definition, loop))
    dominator = None
    for definition in sorted(before, key=lambda d: _position(d.node), reverse=True):
        reaching.append(definition)
        if _dominates(definition.node, use):
            dominator = definition.node
            break
    # A binding later in a loop reaches the next iteration's use only if no binding that
    # dominates the use runs in between, inside that same loop (``s = zeros(); s = f(s)``).
    carried = [d for d, loop in carried if dominator is None or not _contains(loop, dominator)]
    return carried + reaching


def walk_value(ctx: "FileContext", expr: ast.AST, descend, max_depth: int, seen: set[int] | None = None) -> None:
    """Visit every node ``expr``'s value is computed from, following each name to the bindings
    that reach that use (``x += y`` to its right side) up to ``max_depth`` bindings deep, never
    into lambdas. ``descend(node)`` sees each node once and returns whether to go below it: it
    is where a caller records what it looks for and stops (at a load, a select, ...)."""
    seen = set() if seen is None else seen
    stack: list[tuple[ast.AST, int]] = [(expr, 0)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen or depth > max_depth:
            continue
        seen.add(id(node))
        if not descend(node):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for definition in reaching_definitions(ctx, node):
                binding = definition.node
                value = binding.value if isinstance(binding, ast.AugAssign) else definition.value
                if value is not None:
                    stack.append((value, depth + 1))
        elif not isinstance(node, ast.Lambda):
            stack.extend((child, depth) for child in children(node))


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


def _comprehension_binding(definitions: list[Definition], use: ast.AST) -> Definition | None:
    """The binding of the innermost comprehension around ``use`` whose variable it reads: in
    ``[e for t0 in i0 if c0 for t1 in i1 if c1]`` the element and ``c1`` see ``t1`` then ``t0``,
    ``i1`` and ``c0`` see ``t0``, and ``i0`` is read in the enclosing scope."""
    child = use
    for ancestor in ancestors(use):
        if isinstance(ancestor, _SCOPES):
            return None
        if isinstance(ancestor, _COMPREHENSIONS):
            generators = ancestor.generators
            at = next((i for i, g in enumerate(generators) if g is child), None)
            if at is None:  # the element (or a dict comprehension's key or value)
                visible = len(generators)
            else:
                iterable = generators[at].iter
                visible = at if use is iterable or _contains(iterable, use) else at + 1
            for generator in reversed(generators[:visible]):
                found = next((d for d in definitions if d.node is generator.target), None)
                if found is not None:
                    return found
        child = ancestor
    return None


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    """``inner`` is below ``outer``. A node outside ``outer``'s lines is not (the parser keeps
    every node within its parent's lines, except a definition's decorators, above it), which
    spares the walk up from most uses a reaching search asks about."""
    first, last, line = getattr(outer, "lineno", None), getattr(outer, "end_lineno", None), getattr(inner, "lineno", None)
    if first is not None and last is not None and line is not None and not isinstance(outer, _DECORATED) \
            and not first <= line <= last:
        return False
    return any(a is outer for a in ancestors(inner))


_DECORATED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _binds_before(binding: ast.AST, use: ast.AST) -> bool:
    """The binding happens earlier in the text than ``use`` is read. An assignment binds after
    its right-hand side is evaluated, so ``x = f(x)`` does not reach its own ``x``."""
    if _position(binding) >= _position(use):
        return False
    return not (isinstance(binding, _ASSIGNMENTS) and _contains(binding, use))


_ASSIGNMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)


def _dominates(binding: ast.AST, use: ast.AST) -> bool:
    """True when ``binding`` certainly runs before ``use`` (structured code, no early exits)."""
    if isinstance(binding, ast.arg):
        return True
    if isinstance(binding, (ast.For, ast.AsyncFor)):
        return _contains(binding, use)
    if not isinstance(binding, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        return False
    owner = parent(binding)
    for ancestor in ancestors(use):
        if parent(ancestor) is owner:
            return _same_block(owner, binding, ancestor)
    return False


def _same_block(owner: ast.AST, first: ast.AST, second: ast.AST) -> bool:
    for members in _blocks(owner):
        if id(first) in members:
            return id(second) in members
    return False


def _blocks(owner: ast.AST) -> tuple[frozenset[int], ...]:
    """The statement ids of each block of ``owner`` (body, else, finally), kept on the node: a
    long kernel's body is asked about for every use of every name."""
    found = owner.__dict__.get("_kl_blocks")
    if found is None:
        found = tuple(frozenset(id(s) for s in block) for field in ("body", "orelse", "finalbody")
                      if isinstance(block := getattr(owner, field, None), list))
        owner._kl_blocks = found  # type: ignore[attr-defined]
    return found


def value_at(ctx: "FileContext", use: ast.Name) -> ast.expr | None:
    """The one expression ``use`` certainly holds: its single reaching binding, when that is a
    plain assignment; None when several bindings may reach it or the binding is opaque (a ``def``,
    a parameter, a loop variable)."""
    reaching = reaching_definitions(ctx, use)
    if len(reaching) != 1 or reaching[0].kind != "assign":
        return None
    return reaching[0].value
