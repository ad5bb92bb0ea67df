"""KL201 raw-2d-load-dynamic-strides and KL205 trans-in-k-loop."""
from __future__ import annotations

import textwrap

from conftest import PAIRS_ROOT
from kernelint.engine import Options, check_source

PAIRS = PAIRS_ROOT / "triton"

HEADER = """
import torch
import triton
import triton.language as tl
"""


def test_targets_without_tma_are_not_told_to_use_descriptors():
    source = (PAIRS / "KL201_raw_2d_load_dynamic_strides" / "bad.py").read_text(encoding="utf-8")
    codes = {"KL201"}
    assert [f.code for f in check_source("bad.py", source, Options(frozenset(codes), "sm_90a"))] == ["KL201"] * 2
    assert check_source("bad.py", source, Options(frozenset(codes), "sm_80")) == []


def test_dataflow_splits_a_tile_pointer_into_bases_and_strides():
    import ast

    from kernelint.model import FileContext
    from kernelint.model.core import dataflow

    source = HEADER + textwrap.dedent("""
    @triton.jit
    def k(ptrs, lds, x_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        base = tl.load(ptrs).to(tl.pointer_type(tl.float16))
        ld = tl.load(lds)
        rows = tl.arange(0, BM)
        cols = tl.arange(0, BN)
        p = base + rows[:, None] * ld + (cols * stride)[None, :] + 7
        q = x_ptr + rows[:, None] * stride
        tl.store(x_ptr + cols, tl.load(p)[0, :] + tl.load(q)[0, :])
    """)
    ctx = FileContext("k.py", source, ast.parse(source), [ast.Call])
    values = {node.targets[0].id: node.value for node in ast.walk(ctx.tree) if isinstance(node, ast.Assign)}
    tile = dataflow.tile_pointer(ctx, values["p"])
    assert sorted(ast.unparse(s) for s in tile.strides) == ["ld", "stride"]
    loaded_base = "tl.load(ptrs).to(tl.pointer_type(tl.float16))"  # names are followed to their values
    assert sorted(ast.unparse(b) for b in tile.bases) == ["7", loaded_base]
    assert [ast.unparse(s) for s in tile.strides_from_memory(ctx)] == ["ld"]
    assert [ast.unparse(b) for b in tile.bases_from_memory(ctx)] == [loaded_base]
    assert dataflow.tile_pointer(ctx, values["q"]) is None  # one axis only: not a 2D tile
    assert dataflow.depends_on_load(ctx, values["p"]) and not dataflow.depends_on_load(ctx, values["q"])


def test_reached_answers_match_a_walk_from_each_expression_through_loop_carried_names():
    """``reached_union`` keeps one answer per strongly connected part of the value graph; every
    expression's answer must still be what a walk from that expression alone (``reaches``)
    finds, whichever expression is asked first (a name the loop adds to itself is a cycle)."""
    import ast

    from kernelint.model import FileContext
    from kernelint.model.core import dataflow

    source = HEADER + textwrap.dedent("""
    @triton.jit
    def k(x_ptr, n_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        rows = tl.arange(0, BM)
        cols = tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        ptrs = x_ptr + rows[:, None] * stride
        step = tl.load(n_ptr)
        for i in range(4):
            ptrs += step
            acc = acc + tl.load(ptrs + cols[None, :])
            ptrs = ptrs + (acc > 0).to(tl.int32)
        tl.store(ptrs, acc)
    """)

    def walked(ctx, expr):
        axes = set()

        def match(node):
            found = dataflow.broadcast_operand(ctx, node)
            if found is not None:
                axes.add(found[1])
            return False

        dataflow.reaches(ctx, expr, match, prune=lambda node: dataflow.is_load(ctx, node))
        loads = dataflow.reaches(ctx, expr, lambda node: dataflow.is_load(ctx, node)) is not None
        return frozenset(axes), loads

    tree = ast.parse(source)
    expressions = [n for n in ast.walk(tree) if isinstance(n, ast.expr)]
    for order in (expressions, expressions[::-1]):
        ctx = FileContext("k.py", source, tree, ())
        answers = {id(e): (dataflow.broadcast_axes(ctx, e), dataflow.depends_on_load(ctx, e)) for e in order}
        assert all(answers[id(e)] == walked(ctx, e) for e in expressions)
    store = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "store")
    assert answers[id(store.args[0])] == (frozenset({0}), True)  # the load that reads cols is data
