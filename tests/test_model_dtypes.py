"""KL104 erf-needs-fp32 and KL105 tanh-approximation-as-erf, and the dtype model they read."""
from __future__ import annotations

import ast
import textwrap

import pytest

from kernelint.model import FileContext
from kernelint.model.triton.dtypes import Precision, precision_of

HEADER = """
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice
"""


# --- the dtype model ---------------------------------------------------------------------------

def precision_at(body: str, name: str) -> Precision:
    """Precision of the value read by the last ``probe(<name>)`` in the snippet."""
    source = HEADER + textwrap.dedent(body)
    tree = ast.parse(source)
    ctx = FileContext("snippet.py", source, tree, ())
    probes = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
              and isinstance(n.func, ast.Name) and n.func.id == "probe"]
    argument = probes[-1].args[0]
    assert isinstance(argument, ast.Name) and argument.id == name
    return precision_of(ctx, argument)


@pytest.mark.parametrize("statement, expected", [
    ("v = tl.load(p + offs)", Precision.LOADED),
    ("v = tl.load(p + offs) * 0.5 + 1.0", Precision.LOADED),
    ("v = tl.load(p + offs).to(tl.float32)", Precision.WIDE),
    ("v = tl.load(p + offs).to(tl.float16) * 0.5", Precision.LOW),
    ("v = tl.cast(tl.load(p + offs), tl.bfloat16)", Precision.LOW),
    ("v = tl.load(p + offs).to(DTYPE)", Precision.UNKNOWN),
    ("v = tl.load(p + offs).to(tl.float16) / 1.4142", Precision.WIDE),  # Triton divides in fp32
    ("v = tl.zeros((BLOCK,), dtype=tl.float32)", Precision.WIDE),
    ("v = tl.full((BLOCK,), 1.0, ACC_DTYPE)", Precision.WIDE),  # module constant
    ("v = tl.dot(tl.load(p + offs), tl.load(p + offs))", Precision.WIDE),
    ("v = tl.load(p + offs).to(tl.float16) * tl.zeros((BLOCK,), dtype=tl.float32)", Precision.WIDE),
    ("v = tl.load(p + offs).to(tl.float16) * scale", Precision.UNKNOWN),  # scale may be a tensor
    ("v = tl.load(p + offs).to(tl.float16) * BLOCK", Precision.LOW),  # constexpr: a scalar
    ("v = tl.where(offs < 4, tl.load(p + offs).to(tl.float16), 0.0)", Precision.LOW),
    ("v = tl.exp(tl.load(p + offs).to(tl.float16))[:, None]", Precision.LOW),
    ("v = offs", Precision.UNKNOWN),
])
def test_precision_of_expressions(statement, expected):
    body = f"""
    ACC_DTYPE = tl.float32

    @triton.jit
    def kernel(p, scale, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        {statement}
        probe(v)
    """
    assert precision_at(body, "v") is expected


def test_precision_follows_the_assignment_that_reaches_the_use():
    body = """
    @triton.jit
    def kernel(p, BLOCK: tl.constexpr):
        x = tl.load(p + tl.arange(0, BLOCK))
        probe(x)
        x = x.to(tl.float32)
        probe(x)
    """
    assert precision_at(body, "x") is Precision.WIDE
    first = body.replace("        probe(x)\n        x = x.to", "        probe(x)\n        y = x.to")
    assert precision_at(first, "x") is Precision.LOADED


def test_precision_of_a_conditional_upcast_is_unknown():
    body = """
    @triton.jit
    def kernel(p, UPCAST: tl.constexpr, BLOCK: tl.constexpr):
        x = tl.load(p + tl.arange(0, BLOCK))
        if UPCAST:
            x = x.to(tl.float32)
        probe(x)
    """
    assert precision_at(body, "x") is Precision.UNKNOWN


def test_precision_of_a_loop_carried_accumulator():
    body = """
    @triton.jit
    def kernel(p, K, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for k in range(0, K, BLOCK):
            acc += tl.load(p + k + tl.arange(0, BLOCK))
        probe(acc)
    """
    assert precision_at(body, "acc") is Precision.WIDE


def test_precision_of_a_value_downcast_inside_a_loop_is_unknown():
    body = """
    @triton.jit
    def kernel(p, K, BLOCK: tl.constexpr):
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for k in range(0, K, BLOCK):
            probe(acc)
            acc = acc.to(tl.float16)
    """
    assert precision_at(body, "acc") is Precision.UNKNOWN


# --- KL104 -------------------------------------------------------------------------------------


# --- KL105 -------------------------------------------------------------------------------------


