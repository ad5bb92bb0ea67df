"""Unnormalised (linear) attention O = (Q K^T) V, a query block per program, looping over key
blocks: the score tile is computed into a freshly zeroed accumulator, `tl.dot(q, kt, zeros)`
(bad), or by `tl.dot(q, kt)` alone (good)."""
import torch
import triton
import triton.language as tl


@triton.jit
def linear_attention_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, seq_len,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr,
):
    pid_m = tl.program_id(0)
    head = tl.program_id(1).to(tl.int64)
    base = head * seq_len * HEAD_DIM
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    kt_ptrs = k_ptr + base + offs_d[:, None] + offs_n[None, :] * HEAD_DIM
    v_ptrs = v_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start_n in range(0, seq_len, BLOCK_N):
        kt = tl.load(kt_ptrs)
        v = tl.load(v_ptrs)
        scores = tl.dot(q, kt)
        acc = tl.dot(scores.to(v.dtype), v, acc)
        kt_ptrs += BLOCK_N * HEAD_DIM
        v_ptrs += BLOCK_N * HEAD_DIM
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(o_ptr.dtype.element_ty))


def run(q, k, v):
    heads, seq_len, head_dim = q.shape
    o = torch.empty_like(q)
    grid = (triton.cdiv(seq_len, 128), heads)
    linear_attention_kernel[grid](q, k, v, o, seq_len, BLOCK_M=128, BLOCK_N=64, HEAD_DIM=head_dim,
                                  num_warps=8, num_stages=3)
    return o
