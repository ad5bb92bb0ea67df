"""Answers kept per file model: a question about one node of a parsed tree has one answer while
the file is checked, and the value followers ask the same ones many times per kernel."""
from __future__ import annotations

import ast
from typing import Callable, TypeVar

T = TypeVar("T")


#: Question -> the names of its tables on the file model (made once, not on every question).
_TABLES: dict[str, tuple[str, str]] = {}
_MISSING = object()


def remembered(ctx, question: str, node: ast.AST, answer: Callable[[], T], *key) -> T:
    """``answer()`` for ``question`` about ``node`` (and ``key``), computed once per file model.
    The nodes asked about are kept in a list beside the answers, so an id cannot be reused by
    another node meanwhile. Asked tens of thousands of times per long file: a hit builds no
    key tuple without ``key``, and an answer adds no tuple for the collector to trace."""
    names = _TABLES.get(question)
    if names is None:
        names = _TABLES[question] = ("_memo_" + question, "_memo_nodes_" + question)
    memo = ctx.__dict__.get(names[0])
    if memo is None:
        memo = ctx.__dict__[names[0]] = {}
        ctx.__dict__[names[1]] = []
    at = (id(node), *key) if key else id(node)
    found = memo.get(at, _MISSING)
    if found is _MISSING:
        found = memo[at] = answer()
        ctx.__dict__[names[1]].append(node)
    return found


def kept_on(owner, name: str) -> dict:
    """A dictionary of answers kept on ``owner`` (a file model, a view) while it lives. In the
    owner's own ``__dict__``, not in a module-level ``WeakKeyDictionary``: an answer that refers
    back to its owner (a launch site holds its file model) kept such a weak key alive for the
    whole run, and with it every file model and tree (2 GB over the corpus in one process)."""
    return owner.__dict__.setdefault("_kept_" + name, {})
