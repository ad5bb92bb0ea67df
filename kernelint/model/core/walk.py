"""The single traversal of a file: parent links plus per-node-type buckets."""
from __future__ import annotations

import ast
import re
from collections import defaultdict
from typing import Iterable

PARENT = "_kl_parent"

#: ASDL field types that never hold a node worth visiting: plain values, and the operator and
#: context singletons (one shared ``ast.Load()`` per process, so a parent link on it means nothing).
_SCALAR_TYPES = frozenset({"identifier", "int", "string", "constant"})
_SINGLETON_TYPES = frozenset({"expr_context", "operator", "boolop", "unaryop", "cmpop"})
_SINGLETON_CLASSES = frozenset(
    cls for base in (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
    for cls in base.__subclasses__()
)

def _node_classes(base: type) -> set[type]:
    found = set()
    for cls in base.__subclasses__():
        found.add(cls)
        found |= _node_classes(cls)
    return found


#: Every concrete node class that is not a shared singleton: what a file model buckets once a
#: rule asks for a type it did not declare (one more walk, however many types are asked later).
EVERY_NODE_CLASS = frozenset(cls for cls in _node_classes(ast.AST) if cls._fields or cls.__subclasses__() == []) \
    - _SINGLETON_CLASSES
_SIGNATURE = re.compile(r"\w+\((.*)\)$")
#: Per node class, ``index_tree``'s field order: without the shared singletons' fields, and with.
_VISIT_ORDER: tuple[dict[type, tuple[tuple[str, int], ...]], ...] = ({}, {})


def _declared_fields(cls: type) -> dict[str, str]:
    """Field name -> ASDL type (``expr``, ``stmt*``, ``identifier?``) from the signature CPython
    puts in each node class's docstring (``Name(identifier id, expr_context ctx)``)."""
    declared: dict[str, str] = {}
    match = _SIGNATURE.match((cls.__doc__ or "").strip())
    if match:
        for part in match.group(1).split(","):
            words = part.split()
            if len(words) == 2:
                declared[words[1]] = words[0]
    return declared


def _visit_order(cls: type, with_singletons: bool) -> tuple[tuple[str, int], ...]:
    """``_child_fields(cls)`` last first (they go onto a stack), without the shared singletons'
    fields unless asked for."""
    fields = _CHILD_FIELDS.get(cls) or _child_fields(cls)
    singletons = _SINGLETON_FIELDS.get(cls, frozenset())
    order = tuple((name, many) for name, many in reversed(fields) if with_singletons or name not in singletons)
    _VISIT_ORDER[with_singletons][cls] = order
    return order


def index_tree(tree: ast.Module, wanted: Iterable[type[ast.AST]]) -> dict[type, list[ast.AST]]:
    """Walk ``tree`` once in source (pre-)order; link each node to its parent and bucket the
    nodes whose type is in ``wanted``. The hottest loop in kernelint: it reads fields directly
    instead of going through ``ast.iter_child_nodes`` (2-3x faster on real kernel files), and
    tests a value's type only where the signature lets it be something else (a list that may
    hold None, an undeclared field): about a sixth faster than testing every value."""
    wanted = frozenset(wanted)
    with_singletons = not wanted.isdisjoint(_SINGLETON_CLASSES)
    buckets: dict[type, list[ast.AST]] = defaultdict(list)
    node_class = ast.AST
    orders = _VISIT_ORDER[with_singletons]
    stack: list[ast.AST] = [tree]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        cls = node.__class__
        if cls in wanted:
            buckets[cls].append(node)
        order = orders.get(cls)
        if order is None:
            order = _visit_order(cls, with_singletons)
        for name, many in order:
            value = getattr(node, name, None)
            if many == _NEVER_NONE:
                if value:  # None only in a tree built by hand without the field
                    for child in reversed(value):
                        child._kl_parent = node  # type: ignore[attr-defined]
                        push(child)
            elif not many:
                if value is not None:
                    value._kl_parent = node  # type: ignore[attr-defined]
                    push(value)
            elif value.__class__ is list:
                for child in reversed(value):
                    if isinstance(child, node_class):
                        child._kl_parent = node  # type: ignore[attr-defined]
                        push(child)
            elif isinstance(value, node_class):
                value._kl_parent = node  # type: ignore[attr-defined]
                push(value)
    return buckets


def parent(node: ast.AST) -> ast.AST | None:
    return getattr(node, PARENT, None)


_SUBTREE = "_kl_subtree"
_CHILDREN = "_kl_children"
#: Nodes whose subtree rules walk again and again (a kernel, a helper, a class, the module):
#: their node list is kept on the node after the first walk.
_REWALKED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)


def subtree(node: ast.AST) -> tuple[ast.AST, ...] | Iterable[ast.AST]:
    """The nodes of ``node``'s subtree in ``ast.walk`` order. A function's, class's or module's
    list is computed once and kept on the node (dozens of rules walk each kernel); any other
    node is walked afresh. Callers must not change the tree in between."""
    if not isinstance(node, _REWALKED):
        return ast.walk(node)
    found = node.__dict__.get(_SUBTREE)
    if found is None:
        found = _breadth_first(node)
        setattr(node, _SUBTREE, found)
    return found


def _breadth_first(root: ast.AST) -> tuple[ast.AST, ...]:
    """``tuple(ast.walk(root))``, the same nodes in the same order (breadth first, each node's
    children in field order, the shared singletons included), reading the fields directly as
    ``index_tree`` does instead of through ``ast.walk``'s generators."""
    found = [root]
    append, extend = found.append, found.extend
    fields = _CHILD_FIELDS
    position = 0
    while position < len(found):
        node = found[position]
        position += 1
        cls = node.__class__
        order = fields.get(cls)
        if order is None:
            order = _child_fields(cls)
        for name, many in order:
            value = getattr(node, name, None)
            if value is None:
                continue
            if many:
                extend(value if many is _NEVER_NONE else [child for child in value if child is not None])
            else:
                append(value)
    return tuple(found)


_NEVER_NONE, _MAY_HOLD_NONE = 1, 2
#: The list fields CPython fills with None for an absent item: ``{**mapping}``'s key and a
#: keyword-only parameter without a default.
_LISTS_WITH_NONE = frozenset({(ast.Dict, "keys"), (ast.arguments, "kw_defaults")})
#: Per node class, its child-bearing fields in declaration order: (name, 0 for one node or
#: _NEVER_NONE / _MAY_HOLD_NONE for a list).
_CHILD_FIELDS: dict[type, tuple[tuple[str, int], ...]] = {}
#: Per node class, its fields that hold a shared singleton (``ctx``, ``op``), read with the rest.
_SINGLETON_FIELDS: dict[type, frozenset[str]] = {}


def _child_fields(cls: type) -> tuple[tuple[str, int], ...]:
    declared = _declared_fields(cls)
    order = []
    for name in cls._fields:
        kind = declared.get(name)
        if kind is None:
            return _fallback_fields(cls)  # a field the signature does not declare: test each value
        if kind.rstrip("?*") in _SCALAR_TYPES:
            continue
        many = 0 if not kind.endswith("*") else _MAY_HOLD_NONE if (cls, name) in _LISTS_WITH_NONE else _NEVER_NONE
        order.append((name, many))
    _SINGLETON_FIELDS[cls] = frozenset(name for name, kind in declared.items() if kind.rstrip("?*") in _SINGLETON_TYPES)
    _CHILD_FIELDS[cls] = order = tuple(order)
    return order


def _fallback_fields(cls: type) -> tuple[tuple[str, int], ...]:
    """Every field, each list filtered: only for a node class whose signature is unreadable."""
    order = tuple((name, _MAY_HOLD_NONE) for name in cls._fields)
    _CHILD_FIELDS[cls] = order
    return order


def children(node: ast.AST) -> tuple[ast.AST, ...]:
    """``ast.iter_child_nodes(node)`` as a tuple, kept on the node: the value followers visit
    the same expressions many times per kernel."""
    found = node.__dict__.get(_CHILDREN)
    if found is None:
        order = _CHILD_FIELDS.get(node.__class__) or _child_fields(node.__class__)
        found = []
        for name, many in order:
            value = getattr(node, name, None)
            if value is None:
                continue
            if many:
                found.extend(value if many is _NEVER_NONE else [child for child in value if child is not None])
            else:
                found.append(value)
        found = tuple(found)
        setattr(node, _CHILDREN, found)
    return found


def enclosing(node: ast.AST, kinds: tuple[type, ...], key: str) -> ast.AST | None:
    """The nearest proper ancestor of ``node`` that is one of ``kinds``, or None. The answer is
    kept under ``key`` on every node passed on the way up (False for "none"), so asking about
    every node of a tree in turn stays linear."""
    found = node.__dict__.get(key)
    if found is not None:
        return found or None
    chain = [node]
    above = getattr(node, PARENT, None)  # ``parent`` inlined: the hottest walk of the model
    while above is not None and not isinstance(above, kinds):
        found = above.__dict__.get(key)
        if found is not None:
            break
        chain.append(above)
        above = getattr(above, PARENT, None)
    else:
        found = above if above is not None else False
    for passed in chain:
        setattr(passed, key, found)
    return found or None


def ancestors(node: ast.AST):
    node = getattr(node, PARENT, None)
    while node is not None:
        yield node
        node = getattr(node, PARENT, None)
