"""The single traversal of a file: parent links plus per-node-type buckets."""
from __future__ import annotations

import ast
from collections import defaultdict
from typing import Iterable

PARENT = "_kl_parent"


def index_tree(tree: ast.Module, wanted: Iterable[type[ast.AST]]) -> dict[type, list[ast.AST]]:
    """Walk ``tree`` once in source (pre-)order; link each node to its parent and bucket the
    nodes whose type is in ``wanted``."""
    wanted = frozenset(wanted)
    buckets: dict[type, list[ast.AST]] = defaultdict(list)
    iter_children = ast.iter_child_nodes
    stack = [tree]
    pop, push = stack.pop, stack.extend
    while stack:
        node = pop()
        node_type = type(node)
        if node_type in wanted:
            buckets[node_type].append(node)
        children = list(iter_children(node))
        for child in children:
            child._kl_parent = node  # type: ignore[attr-defined]
        children.reverse()
        push(children)
    return buckets


def parent(node: ast.AST) -> ast.AST | None:
    return getattr(node, PARENT, None)


def ancestors(node: ast.AST):
    node = parent(node)
    while node is not None:
        yield node
        node = parent(node)
