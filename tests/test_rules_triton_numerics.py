"""KL104 erf-needs-fp32 and KL105 tanh-approximation-as-erf, and the dtype model they read."""
from __future__ import annotations

import ast
import textwrap

import pytest

from expectations import assert_expectations
from kernelint.model import FileContext
from kernelint.model.dtypes import Precision, precision_of

HEADER = """
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice
"""


def check(body: str, code: str) -> None:
    assert_expectations(HEADER + textwrap.dedent(body), code)


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
    return precision_of(argument, ctx)


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

def test_erf_of_loaded_value_is_reported():
    check("""
    @triton.jit
    def gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        y = x * 0.5 * (1.0 + tl.math.erf(x * 0.7071067811865476))  # expect: KL104
        tl.store(y_ptr + offs, y, mask=offs < n)
    """, "KL104")


def test_erf_spellings_on_half_values_are_reported():
    check("""
    import triton.language.math as tlm
    from triton.language.extra.cuda import libdevice as cuda_libdevice

    @triton.jit
    def kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        h = tl.load(x_ptr + offs).to(tl.float16)
        b = tl.load(x_ptr + offs).to(tl.bfloat16) * 2.0
        a = tl.erf(h)  # expect: KL104
        c = tlm.erf(b)  # expect: KL104
        d = libdevice.erfc(h)  # expect: KL104
        e = cuda_libdevice.erfinv(b)  # expect: KL104
        f = h.erf()  # expect: KL104
        tl.store(y_ptr + offs, a + c + d + e + f)
    """, "KL104")


def test_erf_after_upcast_or_on_fp32_values_is_not_reported():
    check("""
    @triton.jit
    def kernel(x_ptr, y_ptr, K, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        x = x.to(tl.float32)
        a = tl.math.erf(x * 0.7071067811865476)
        b = tl.math.erf(tl.load(x_ptr + offs).to(tl.float32))
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for k in range(0, K, BLOCK):
            acc += tl.load(x_ptr + k + offs)
        c = tl.math.erf(acc)
        h = tl.load(x_ptr + offs).to(tl.float16)
        d = tl.math.erf(h / 1.4142135623730951)
        tl.store(y_ptr + offs, a + b + c + d)
    """, "KL104")


def test_erf_of_unknown_types_is_not_reported():
    check("""
    @triton.jit
    def gelu_none(x):
        return 0.5 * x * (1 + tl.math.erf(x * 0.7071067811))

    @triton.jit
    def kernel(x_ptr, y_ptr, UPCAST: tl.constexpr, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        if UPCAST:
            x = x.to(tl.float32)
        a = tl.math.erf(x)
        b = tl.math.erf(tl.load(x_ptr + offs).to(DTYPE))
        tl.store(y_ptr + offs, a + b + gelu_none(x))

    def host(x):
        return torch.erf(x.half())
    """, "KL104")


def test_erf_outside_kernels_is_not_reported():
    check("""
    import math

    def cdf(x):
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
    """, "KL104")


# --- KL105 -------------------------------------------------------------------------------------

def test_tanh_formula_in_a_normal_cdf_helper_is_reported():
    check("""
    @triton.jit
    def standard_normal_cdf(x):
        sqrt_2_div_pi = 0.7978845608028654
        erf_approx = libdevice.tanh(sqrt_2_div_pi * (x + 0.044715 * x * x * x))  # expect: KL105
        return 0.5 * (1 + erf_approx)
    """, "KL105")


def test_tanh_formula_feeding_an_erf_variable_is_reported():
    check("""
    @triton.jit
    def gelu_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs).to(tl.float32)
        coeff = 0.044715  # expect: KL105
        inner = 0.7978845608 * (x + coeff * x * x * x)
        erf_val = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
        tl.store(y_ptr + offs, 0.5 * x * (1.0 + erf_val))

    @triton.jit
    def gelu_exact(x):
        return 0.5 * x * (1.0 + libdevice.tanh(x * (0.7978845608 + 0.0356774081 * x * x)))  # expect: KL105
    """, "KL105")


def test_deliberate_tanh_gelu_is_not_reported():
    check("""
    @triton.jit
    def gelu_tanh(x):
        cdf = 0.5 * (1.0 + libdevice.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
        return x * cdf

    @triton.jit
    def _gelu_fast_normal_cdf(x):
        return 0.5 * (1.0 + libdevice.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))

    @triton.jit
    def gelu(x, APPROXIMATE: tl.constexpr):
        if APPROXIMATE == "tanh":
            y = 0.5 * x * (1.0 + libdevice.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
        else:
            y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
        return y

    @triton.jit
    def gelu_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
        # FasterTransformer's spelling: the tanh factor is called cdf in a plain gelu kernel.
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs).to(tl.float32)
        cdf = 0.5 * (1.0 + libdevice.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
        tl.store(y_ptr + offs, x * cdf)
    """, "KL105")


def test_tanh_formula_outside_kernels_is_not_reported():
    check("""
    def standard_normal_cdf(x):
        return 0.5 * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
    """, "KL105")
