"""KL101 hardcoded-pointer-type and KL102 int32-stride-table."""
from __future__ import annotations

import textwrap

from expectations import assert_expectations

HEADER = """
import torch
import triton
import triton.language as tl
"""


def check(body: str, *codes: str) -> None:
    assert_expectations(HEADER + textwrap.dedent(body), *codes)


# --- KL101 -------------------------------------------------------------------------------------

def test_literal_float_pointer_types_are_reported():
    check("""
    from triton.language import pointer_type

    F16_PTR = tl.pointer_type(tl.float16)

    @triton.jit
    def group_gemm(a_ptrs, b_ptrs, c_ptrs, g):
        a = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))  # expect: KL101
        b = tl.load(b_ptrs + g).to(dtype=pointer_type(tl.bfloat16))  # expect: KL101
        c = tl.cast(tl.load(c_ptrs + g), tl.pointer_type(tl.float32))  # expect: KL101
        d = tl.load(c_ptrs + g + 1).to(F16_PTR)  # expect: KL101
        tl.store(c + tl.arange(0, 16), tl.load(a + tl.arange(0, 16)) + tl.load(b) + tl.load(d))
    """, "KL101")


def test_pointer_table_kernel_with_dtype_constexpr_is_not_reported():
    check("""
    _DTYPES = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32}

    @triton.jit
    def group_gemm(a_ptrs, b_ptrs, c_ptrs, strides, first_c, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
        g = tl.program_id(0)
        a = tl.load(a_ptrs + g).to(tl.pointer_type(DTYPE))
        b = tl.load(b_ptrs + g).to(tl.pointer_type(first_c.dtype.element_ty))
        c = tl.load(c_ptrs + g).to(tl.pointer_type(DTYPE))
        stride = tl.load(strides + g)
        offs = tl.arange(0, BLOCK)
        tl.store(c + offs * stride, (tl.load(a + offs * stride) + tl.load(b + offs)).to(DTYPE))

    def launch(As, Bs, Cs):
        a_ptrs = torch.tensor([a.data_ptr() for a in As], dtype=torch.int64, device="cuda")
        b_ptrs = torch.tensor([b.data_ptr() for b in Bs], dtype=torch.int64, device="cuda")
        c_ptrs = torch.tensor([c.data_ptr() for c in Cs], dtype=torch.int64, device="cuda")
        strides = torch.tensor([a.stride(0) for a in As], dtype=torch.int64, device="cuda")
        group_gemm[(len(As),)](a_ptrs, b_ptrs, c_ptrs, strides, Cs[0], DTYPE=_DTYPES[As[0].dtype], BLOCK=64)
    """, "KL101")


def test_integer_pointer_tables_and_host_code_are_not_reported():
    check("""
    @triton.jit
    def gather(index_ptrs, out_ptr, g):
        idx = tl.load(index_ptrs + g).to(tl.pointer_type(tl.int64))
        tl.store(out_ptr + g, tl.load(idx))

    def describe():
        return tl.pointer_type(tl.float16)
    """, "KL101")


# --- KL102 -------------------------------------------------------------------------------------

GROUPED_KERNEL = """
@triton.jit
def grouped_copy(ptrs, strides, rows, out_ptr, K, BLOCK: tl.constexpr):
    g = tl.program_id(1)
    row = tl.program_id(0)
    base = tl.load(ptrs + g).to(tl.pointer_type(tl.float32))  # expect: KL101
    stride = tl.load(strides + g)
    cols = tl.arange(0, BLOCK)
    tl.store(out_ptr + row * K + cols, tl.load(base + row * stride + cols))
"""


def test_int32_stride_tables_passed_to_a_kernel_are_reported():
    check(GROUPED_KERNEL + textwrap.dedent("""
    def launch(As, out):
        ptrs = torch.tensor([a.data_ptr() for a in As], dtype=torch.int64, device="cuda")
        strides = torch.tensor([a.stride(0) for a in As], dtype=torch.int32, device="cuda")  # expect: KL102
        rows = torch.tensor([a.shape[0] for a in As], dtype=torch.int32, device="cuda")
        grouped_copy[(1024, len(As))](ptrs, strides, rows, out, 64, BLOCK=64)

    def launch_with_list(As, out):
        stride_list = []
        for a in As:
            stride_list.append(a.stride(0))
        ptrs = torch.tensor([a.data_ptr() for a in As], dtype=torch.int64, device="cuda")
        table = torch.tensor(stride_list, dtype=torch.int).cuda()  # expect: KL102
        rows = torch.tensor([a.shape[0] for a in As], device="cuda")
        grouped_copy[(1024, len(As))](ptrs, table, rows, out, 64, BLOCK=64)

    def launch_keywords(As, out, a_stride_list):
        ptrs = torch.tensor([a.data_ptr() for a in As], dtype=torch.int64, device="cuda")
        rows = torch.tensor([a.shape[0] for a in As], device="cuda")
        grouped_copy[(1024, len(As))](ptrs=ptrs, rows=rows, out_ptr=out, K=64, BLOCK=64,
                                      strides=torch.tensor(a_stride_list).to(torch.int32))  # expect: KL102

    def launch_addresses(As, out):
        ptrs = torch.tensor([a.data_ptr() for a in As], dtype=torch.int32, device="cuda")  # expect: KL102
        strides = torch.tensor([a.stride(0) for a in As], dtype=torch.int64, device="cuda")
        rows = torch.tensor([a.shape[0] for a in As], device="cuda")
        grouped_copy[(1024, len(As))](ptrs, strides, rows, out, 64, BLOCK=64)
    """), "KL101", "KL102")


def test_int32_tables_of_other_things_are_not_reported():
    check(GROUPED_KERNEL + textwrap.dedent("""
    def launch(As, out, token_ids, seqlens):
        ptrs = torch.tensor([a.data_ptr() for a in As], dtype=torch.int64, device="cuda")
        strides = torch.tensor([a.stride(0) for a in As], dtype=torch.int64, device="cuda")
        rows = torch.tensor([a.shape[0] for a in As], dtype=torch.int32, device="cuda")
        cu_seqlens = torch.tensor([0] + list(seqlens), dtype=torch.int32, device="cuda").cumsum(0)
        ids = torch.tensor(token_ids, dtype=torch.int32, device="cuda")
        counts = torch.tensor([len(t) for t in token_ids], dtype=torch.int32, device="cuda")
        grouped_copy[(1024, len(As))](ptrs, strides, rows, out, 64, BLOCK=64)
        grouped_copy[(1024, len(As))](ids, strides, counts, out, 64, BLOCK=64)
        grouped_copy[(1024, len(As))](ptrs, strides, cu_seqlens, out, 64, BLOCK=64)
    """), "KL101", "KL102")


def test_int32_strides_not_launched_or_widened_in_kernel_are_not_reported():
    check("""
    @triton.jit
    def grouped_copy(ptrs, strides, out_ptr, K, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
        g = tl.program_id(1)
        row = tl.program_id(0)
        base = tl.load(ptrs + g).to(tl.pointer_type(DTYPE))
        stride = tl.load(strides + g).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        tl.store(out_ptr + row * K + cols, tl.load(base + row * stride + cols))

    def launch(As, out):
        ptrs = torch.tensor([a.data_ptr() for a in As], dtype=torch.int64, device="cuda")
        strides = torch.tensor([a.stride(0) for a in As], dtype=torch.int32, device="cuda")
        grouped_copy[(1024, len(As))](ptrs, strides, out, 64, DTYPE=tl.float16, BLOCK=64)

    def metadata(As):
        return torch.tensor([a.stride(0) for a in As], dtype=torch.int32)
    """, "KL102")
