"""Answers kept per file model: a question about one node of a parsed tree has one answer while
the file is checked, and the value followers ask the same ones many times per kernel."""
from __future__ import annotations

import ast
from typing import Callable, TypeVar

T = TypeVar("T")


#: Question -> the name of its table on the file model (made once, not on every question).
_TABLES: dict[str, str] = {}


def remembered(ctx, question: str, node: ast.AST, answer: Callable[[], T], *key) -> T:
    """``answer()`` for ``question`` about ``node`` (and ``key``), computed once per file model.
    The node is kept with its answer, so its id cannot be reused by another node meanwhile.
    Asked tens of thousands of times per long file: a hit builds no key tuple without ``key``
    and no table."""
    name = _TABLES.get(question) or _TABLES.setdefault(question, "_memo_" + question)
    memo = ctx.__dict__.get(name)
    if memo is None:
        memo = ctx.__dict__[name] = {}
    at = (id(node), *key) if key else id(node)
    entry = memo.get(at)
    if entry is None:
        entry = memo[at] = (node, answer())
    return entry[1]


def kept_on(owner, name: str) -> dict:
    """A dictionary of answers kept on ``owner`` (a file model, a view) while it lives. In the
    owner's own ``__dict__``, not in a module-level ``WeakKeyDictionary``: an answer that refers
    back to its owner (a launch site holds its file model) kept such a weak key alive for the
    whole run, and with it every file model and tree (2 GB over the corpus in one process)."""
    return owner.__dict__.setdefault("_kept_" + name, {})
