"""The fast single walk must visit exactly what ``ast.iter_child_nodes`` reaches, in the same order."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kernelint.model.core.walk import _SINGLETON_CLASSES, index_tree, parent

ROOT = Path(__file__).resolve().parent.parent
TRICKY = '''
import triton.language as tl
@triton.jit
def k(a, /, b: "T" = 1, *c, d, **e) -> None:
    x = [i for i in range(3) if i if not i]
    y = {k: v async for k, v in z}
    f"{a!r:>{b}} {c}"
    match a:
        case [1, *rest] | {"k": _, **kw} if rest: pass
        case Point(x=0) as p: pass
    try:
        pass
    except* ValueError as err:
        del x[0], y.z
    with (open(a) as f, open(b)):
        lambda q=1, *, r: q if r else -q
    global g
    a @= b ** ~c < d <= e is not None
'''


def reference(tree):
    """Pre-order nodes and parent links, the slow obvious way (operator/context singletons are
    shared by every tree, so they have no parent to speak of)."""
    order, parents = [], {}
    stack = [tree]
    while stack:
        node = stack.pop()
        order.append(node)
        children = [c for c in ast.iter_child_nodes(node) if type(c) not in _SINGLETON_CLASSES]
        for child in children:
            parents[id(child)] = node
        stack.extend(reversed(children))
    return order, parents


SOURCES = [TRICKY] + [p.read_text() for p in sorted(ROOT.glob("reference_kernels/*/*/*.py"))[:40]]


@pytest.mark.parametrize("source", SOURCES)
def test_index_tree_matches_iter_child_nodes(source):
    tree = ast.parse(source)
    order, parents = reference(tree)
    kinds = {type(n) for n in order}
    buckets = index_tree(tree, kinds)
    for kind in kinds:
        assert buckets[kind] == [n for n in order if type(n) is kind]
    for node in order[1:]:
        assert parent(node) is parents[id(node)]


def test_singletons_are_bucketed_only_when_wanted():
    tree = ast.parse("a = b + c\n")
    assert ast.Add not in index_tree(tree, {ast.Name})
    assert len(index_tree(tree, {ast.Add})[ast.Add]) == 1


def test_engine_uses_a_tree_already_parsed_instead_of_parsing_again():
    from kernelint.engine import Options, check_source

    broken = "import triton\n\n@triton.jit\ndef k(x:\n    pass\n"
    options = Options(frozenset({"KL001"}))
    assert [f.code for f in check_source("k.py", broken, options)] == ["KL001"]
    assert check_source("k.py", broken, options, tree=ast.parse("import triton\n")) == []
