"""Import-alias resolution: turn an expression like ``tl.load`` into ``triton.language.load``.

Rules compare qualified names only, so every spelling real code uses (``import triton.language as
tl``, ``from triton import language``, ``import cutlass.cute as cute``, ``from cuda import tile as
ct``) resolves to one canonical name.
"""
from __future__ import annotations

import ast

from kernelint.model.dsl import CANONICAL_PREFIXES as _CANONICAL_PREFIXES


def canonical(qualname: str) -> str:
    for prefix, replacement in _CANONICAL_PREFIXES:
        if qualname.startswith(prefix):
            return replacement + qualname[len(prefix):]
    return qualname


#: Statement fields that hold statement lists (or handlers / match cases holding them).
BLOCK_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


def attribute_chain(expr: ast.AST) -> tuple[str, list[str]] | None:
    """``a.b.c`` -> (``"a"``, ``["b", "c"]``): the name a chain of attributes starts from and the
    attributes after it; None when ``expr`` is not such a chain."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    return (expr.id, parts[::-1]) if isinstance(expr, ast.Name) else None


class ImportTable:
    """Local name -> fully qualified name, from every import statement in a file.

    Imports inside functions are merged into the same table: kernel files alias consistently,
    and a local import of ``triton.language as tl`` means the same thing everywhere.
    """

    def __init__(self) -> None:
        self._aliases: dict[str, str] = {}

    @classmethod
    def from_tree(cls, tree: ast.Module) -> "ImportTable":
        """Every import of the file, in source order, read from statement lists only: imports
        are statements, so this finds them all without visiting one expression."""
        table = cls()
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                table.add(node)
                continue
            for name in reversed(node._fields):
                if name in BLOCK_FIELDS:
                    stack.extend(reversed(getattr(node, name)))
        return table

    def add(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self._aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    self._aliases[top] = top
        elif node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*":
                    self._aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def imports_any(self, *roots: str) -> bool:
        return any(
            target == root or target.startswith(root + ".")
            for target in self._aliases.values()
            for root in roots
        )

    def binds(self, name: str) -> bool:
        """An import of the file binds ``name`` (so a bare ``name`` can have a qualname)."""
        return name in self._aliases

    def qualname(self, expr: ast.AST) -> str | None:
        """The canonical dotted name ``expr`` refers to, or None when it is not an imported name."""
        chain = attribute_chain(expr)
        if chain is None:
            return None
        root, parts = chain
        base = self._aliases.get(root)
        if base is None:
            return None
        return canonical(".".join([base, *parts]))
