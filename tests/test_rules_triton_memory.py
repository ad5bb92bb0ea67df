"""KL201 raw-2d-load-dynamic-strides and KL205 trans-in-k-loop."""
from __future__ import annotations

import textwrap

from conftest import PAIRS_ROOT
from expectations import assert_expectations
from kernelint.engine import Options, check_source

PAIRS = PAIRS_ROOT / "triton"

HEADER = """
import torch
import triton
import triton.language as tl
"""


def check(body: str, *codes: str) -> None:
    assert_expectations(HEADER + textwrap.dedent(body), *codes)


# --- KL201 raw-2d-load-dynamic-strides ---------------------------------------------------------

def test_pointer_table_gemm_with_loaded_strides_is_reported():
    check("""
    @triton.jit
    def grouped_gemm(ptrs, lds, sizes, DTYPE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
        g = tl.program_id(1)
        K = tl.load(sizes + g)
        a_ptr = tl.load(ptrs + g * 3).to(tl.pointer_type(DTYPE))
        b_ptr = tl.load(ptrs + g * 3 + 1).to(tl.pointer_type(DTYPE))
        lda = tl.load(lds + g * 3).to(tl.int64)
        ldb = tl.load(lds + g * 3 + 1)
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * lda + offs_k[None, :]
        b_ptrs = b_ptr + (offs_k * ldb)[:, None] + offs_n[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k, other=0.0)  # expect: KL201
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k, other=0.0)  # expect: KL201
            acc += tl.dot(a, b)
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K * ldb
        c = tl.load(ptrs + g * 3 + 2).to(tl.pointer_type(DTYPE))
        tl.store(c + offs_m[:, None] * BLOCK_N + offs_n[None, :], acc.to(DTYPE))
    """, "KL201")


def test_base_pointer_from_a_pointer_table_is_reported():
    check("""
    @triton.jit
    def grouped_copy(ptrs, out_ptr, stride_m, DTYPE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
        g = tl.program_id(0)
        src = tl.load(ptrs + g).to(tl.pointer_type(DTYPE))
        rows = tl.expand_dims(tl.arange(0, BLOCK_M), 1)
        cols = tl.expand_dims(tl.arange(0, BLOCK_N), 0)
        tile = tl.load(src + rows * stride_m + cols)  # expect: KL201
        tl.store(out_ptr + rows * BLOCK_N + cols, tile)
    """, "KL201")


def test_tutorial_gemm_with_stride_arguments_and_masks_is_not_reported():
    check("""
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
        b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        tl.store(c_ptrs, acc, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))
    """, "KL201")


def test_descriptor_and_block_pointer_loads_from_loaded_strides_are_not_reported():
    check("""
    @triton.jit
    def grouped_gemm_tma(ptrs, lds, sizes, DTYPE: tl.constexpr, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        g = tl.program_id(1)
        M = tl.load(sizes + g * 3)
        K = tl.load(sizes + g * 3 + 2)
        a_ptr = tl.load(ptrs + g * 3).to(tl.pointer_type(DTYPE))
        b_ptr = tl.load(ptrs + g * 3 + 1).to(tl.pointer_type(DTYPE))
        lda = tl.load(lds + g * 3)
        ldb = tl.load(lds + g * 3 + 1)
        a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[lda, 1], block_shape=[BLOCK_M, BLOCK_K])
        b_block = tl.make_block_ptr(b_ptr, shape=(K, BLOCK_N), strides=(ldb, 1), offsets=(0, 0),
                                    block_shape=(BLOCK_K, BLOCK_N), order=(1, 0))
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = a_desc.load([tl.program_id(0) * BLOCK_M, k])
            b = tl.load(b_block, boundary_check=(0, 1))
            acc = tl.dot(a, b, acc)
            b_block = tl.advance(b_block, (BLOCK_K, 0))
    """, "KL201")


def test_loaded_row_offsets_gathers_and_1d_loads_are_not_reported():
    # Varlen attention reads where a sequence starts (cu_seqlens), embedding lookups gather rows
    # by loaded indices, and 1D rows with a loaded stride are not 2D tiles: none is a stride or a
    # base pointer read from memory.
    check("""
    @triton.jit
    def varlen_and_gather(q_ptr, cu_seqlens, idx_ptr, emb_ptr, strides, out_ptr, stride_qm,
                          BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr):
        b = tl.program_id(1)
        start = tl.load(cu_seqlens + b)
        end = tl.load(cu_seqlens + b + 1)
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_d = tl.arange(0, BLOCK_D)
        q = tl.load(q_ptr + (start + offs_m)[:, None] * stride_qm + offs_d[None, :],
                    mask=(start + offs_m)[:, None] < end)
        q_base = q_ptr + start * stride_qm
        q2 = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :])
        rows = tl.load(idx_ptr + offs_m)
        emb = tl.load(emb_ptr + rows[:, None] * BLOCK_D + offs_d[None, :])
        row_stride = tl.load(strides + b)
        line = tl.load(q_ptr + b * row_stride + offs_d)
        tl.store(out_ptr + offs_m[:, None] * BLOCK_D + offs_d[None, :], q + q2 + emb + line[None, :])
    """, "KL201")


def test_broadcast_offsets_outside_a_load_are_not_memory_accesses():
    check("""
    @triton.jit
    def causal_mask(out_ptr, lens, BLOCK: tl.constexpr):
        n = tl.load(lens + tl.program_id(0))
        offs = tl.arange(0, BLOCK)
        keep = (offs[:, None] * n >= offs[None, :]) & (offs[None, :] < n)
        tl.store(out_ptr + offs[:, None] * BLOCK + offs[None, :], keep.to(tl.float32))
    """, "KL201")


# --- KL205 trans-in-k-loop ---------------------------------------------------------------------

def test_transposed_tile_loaded_in_the_dot_loop_is_reported():
    check("""
    @triton.jit
    def matmul_bt(a_ptr, bt_ptr, c_ptr, K, stride_am, stride_bn, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
        offs_m = tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :])
            b = tl.load(bt_ptr + offs_n[:, None] * stride_bn + (k + offs_k)[None, :]).to(tl.float16)
            acc = tl.dot(a, tl.trans(b), acc)  # expect: KL205
            acc2 = tl.dot(a, b.T)  # expect: KL205
            acc += acc2
        tl.store(c_ptr + offs_m[:, None] * BLOCK_N + offs_n[None, :], acc)

    @triton.jit
    def attention(q_ptr, k_ptr, v_ptr, o_ptr, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  D: tl.constexpr):
        offs_m = tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, D)
        q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
        acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
        for start in range(0, N, BLOCK_N):
            kt = tl.trans(tl.load(k_ptr + (start + offs_n)[:, None] * D + offs_d[None, :]))  # expect: KL205
            p = tl.dot(q, kt)
            v = tl.load(v_ptr + (start + offs_n)[:, None] * D + offs_d[None, :])
            acc += tl.dot(p.to(tl.float16), v)
        tl.store(o_ptr + offs_m[:, None] * D + offs_d[None, :], acc)
    """, "KL205")


def test_transposes_the_layout_cannot_avoid_are_not_reported():
    check("""
    @triton.jit
    def chunk_kernel(q_ptr, k_ptr, g_ptr, out_ptr, NT, BT: tl.constexpr, BK: tl.constexpr):
        offs_t = tl.arange(0, BT)
        offs_k = tl.arange(0, BK)
        q = tl.load(q_ptr + offs_t[:, None] * BK + offs_k[None, :])
        A = tl.zeros((BT, BT), dtype=tl.float32)
        h = tl.zeros((BK, BK), dtype=tl.float32)
        for i in range(NT):
            k = tl.load(k_ptr + (i * BT + offs_t)[:, None] * BK + offs_k[None, :])
            A += tl.dot(k, tl.trans(k))
            A += tl.dot(q, tl.trans(q))
            h = tl.trans(h)
            g = tl.load(g_ptr + i * BK + offs_k)
            s = tl.trans(tl.load(k_ptr + offs_t[:, None] * BK + offs_k[None, :])) * g[:, None]
            tl.store(out_ptr + offs_k[:, None] * BT + offs_t[None, :], s)
        tl.store(out_ptr + offs_t[:, None] * BT + offs_t[None, :], A)

    @triton.jit
    def no_accumulation(x_ptr, y_ptr, N, B: tl.constexpr):
        offs = tl.arange(0, B)
        w = tl.load(y_ptr + offs[:, None] * B + offs[None, :])
        for i in range(N):
            x = tl.load(x_ptr + i * B * B + offs[:, None] * B + offs[None, :])
            tl.store(y_ptr + i * B * B + offs[:, None] * B + offs[None, :], tl.dot(w, tl.trans(x)))
    """, "KL205")


def test_targets_without_tma_are_not_told_to_use_descriptors():
    source = (PAIRS / "KL201_raw_2d_load_dynamic_strides" / "bad.py").read_text(encoding="utf-8")
    codes = {"KL201"}
    assert [f.code for f in check_source("bad.py", source, Options(frozenset(codes), "sm_90a"))] == ["KL201"] * 2
    assert check_source("bad.py", source, Options(frozenset(codes), "sm_80")) == []


def test_dataflow_splits_a_tile_pointer_into_bases_and_strides():
    import ast

    from kernelint.model import FileContext, dataflow

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
