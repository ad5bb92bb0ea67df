"""model/triton/readback.py (KL145's fact) and model/triton/float_scalars.py (KL146's facts)."""
from __future__ import annotations

import ast
import textwrap

from kernelint.model import FileContext
from kernelint.model.triton.float_scalars import first_arithmetic_use, python_float
from kernelint.model.triton.readback import cross_position_readbacks

HEADER = "import triton\nimport triton.language as tl\n"


def model(source: str) -> FileContext:
    text = HEADER + textwrap.dedent(source)
    return FileContext("m.py", text, ast.parse(text), ())


def readbacks(source: str):
    ctx = model(source)
    return [r for kernel in ctx.kernels for r in cross_position_readbacks(ctx, kernel)]


def test_a_reversed_read_back_names_the_positions_that_cross():
    found = readbacks("""
        @triton.jit
        def k(x_ptr, s_ptr, BLOCK: tl.constexpr):
            pid = tl.program_id(0)
            offs = tl.arange(0, BLOCK)
            tl.store(s_ptr + pid * BLOCK + offs, tl.load(x_ptr + offs))
            y = tl.load(s_ptr + pid * BLOCK + BLOCK - 1 - offs)
    """)
    assert len(found) == 1
    # with the sample tile of 4, position 0 reads what position 3 stored
    assert (found[0].reader, found[0].writer) == ((0,), (3,))
    assert found[0].store.pointer == found[0].load.pointer == "s_ptr"


def test_a_shift_by_a_whole_tile_is_another_program_s_region():
    assert readbacks("""
        @triton.jit
        def k(x_ptr, s_ptr, BLOCK: tl.constexpr):
            pid = tl.program_id(0)
            offs = tl.arange(0, BLOCK)
            tl.store(s_ptr + pid * BLOCK + offs, tl.load(x_ptr + offs))
            y = tl.load(s_ptr + pid * BLOCK + BLOCK + offs)
    """) == []


def test_a_shift_by_a_runtime_size_is_not_decided():
    assert readbacks("""
        @triton.jit
        def k(x_ptr, s_ptr, stride, BLOCK: tl.constexpr):
            pid = tl.program_id(0)
            offs = tl.arange(0, BLOCK)
            tl.store(s_ptr + pid * stride + offs, tl.load(x_ptr + offs))
            y = tl.load(s_ptr + pid * stride + stride + offs)
    """) == []


def test_the_same_element_through_a_second_arange_and_loop_is_its_own():
    assert readbacks("""
        @triton.jit
        def k(x_ptr, n, BLOCK: tl.constexpr):
            for i in range(0, n, BLOCK):
                offs = i + tl.arange(0, BLOCK)
                tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2)
            for i in range(0, n, BLOCK):
                offs = i + tl.arange(0, BLOCK)
                y = tl.load(x_ptr + offs)
    """) == []


def test_a_barrier_between_store_and_load_silences_it():
    assert readbacks("""
        @triton.jit
        def k(x_ptr, s_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(s_ptr + offs, tl.load(x_ptr + offs))
            tl.debug_barrier()
            y = tl.load(s_ptr + BLOCK - 1 - offs)
    """) == []


def test_python_floats_from_literals_annotations_and_defaults():
    ctx = model("""
        def host(x, a: float, b=1e-5, c=3, d=None):
            e = 0.5
            f(x, 2.0, -2.0, a, b, c, d, e, x.item())
    """)
    call = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "f")
    shown = [python_float(ctx, arg) is not None for arg in call.args]
    assert shown == [False, True, True, True, True, False, False, True, False]


def test_the_first_uncast_arithmetic_use_and_the_cast_that_removes_it():
    ctx = model("""
        @triton.jit
        def uses(x_ptr, eps, scale):
            x = tl.load(x_ptr)
            if eps > 0:
                x = x + 1.0
            y = x * scale + eps
            scale = scale.to(tl.float32)
    """)
    kernel = ctx.kernels[0]
    params = {p.arg: p for p in kernel.params}
    use = first_arithmetic_use(ctx, kernel, params["eps"])
    assert use is not None and ast.unparse(use) == "x * scale + eps"
    assert first_arithmetic_use(ctx, kernel, params["scale"]) is None
