"""model/project/dtype_tables.py: what a kernel does with the dtype a table picks, and which
lookups of a table are followed."""
from __future__ import annotations

import ast
import textwrap

import pytest

from kernelint.model.context import FileContext
from kernelint.model.project.dtype_tables import BITCAST, POINTER, UNKNOWN, VALUE, kernel_use, uses_of_table


def _context(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("snippet.py", source, ast.parse(source), ())


@pytest.mark.parametrize("body, expected", [
    ("p = tl.load(ptrs).to(tl.pointer_type(DT))", POINTER),
    ("y = x.to(DT, bitcast=True)", BITCAST),
    ("y = tl.cast(x, DT, bitcast=True)", BITCAST),
    ("y = tl.cast(x, dtype=DT, bitcast=True)", BITCAST),
    ("y = x.to(DT)", VALUE),
    ("y = tl.zeros((4,), dtype=DT) + x.to(DT)", VALUE),
    ("y = x.to(DT, bitcast=flag)", UNKNOWN),
    ("y = helper(x, DT)", UNKNOWN),
    ("y = x.to(DT) if DT == tl.float16 else x", VALUE),
    ("y = x", UNKNOWN),
])
def test_how_a_kernel_uses_its_dtype_parameter(body, expected):
    ctx = _context(f"""
        import triton
        import triton.language as tl

        @triton.jit
        def k(ptrs, x_ptr, flag, DT: tl.constexpr):
            x = tl.load(x_ptr)
            {body}
    """)
    kernel = ctx.kernel_named("k")
    assert kernel_use(ctx, kernel, "DT") == expected


def test_a_table_in_one_file_reaches_the_kernel_through_a_name_and_a_function():
    ctx = _context("""
        import torch
        import triton
        import triton.language as tl

        TABLE = {torch.float16: tl.float16, torch.bfloat16: tl.float16, torch.float32: tl.float32}

        @triton.jit
        def k(p_ptr, n, DT: tl.constexpr):
            base = tl.load(p_ptr).to(tl.pointer_type(DT))

        def pick(x):
            dt = TABLE[x.dtype]
            return dt

        def run(x):
            k[(1,)](x, x.numel(), DT=pick(x))

        def caller():
            run(torch.empty(4, dtype=torch.bfloat16))
    """)
    table = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Dict))
    uses = uses_of_table(ctx, table)
    assert uses.pointers and "`k`" in uses.pointers[0]
    assert set(uses.keys.known) == {"bfloat16"}


def test_a_table_handed_on_whole_is_not_followed():
    ctx = _context("""
        import torch
        import triton.language as tl

        TABLE = {torch.float16: tl.float16, torch.bfloat16: tl.float16}

        def register(tables):
            tables.append(TABLE)
    """)
    table = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Dict))
    uses = uses_of_table(ctx, table)
    assert not uses.complete and not uses.values_only and not uses.pointers
