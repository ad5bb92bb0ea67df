"""Attention forward with a key-padding mask read from memory (left-padded batches), one program
per (query block, batch entry), online softmax over key blocks. The running max is used as is."""
import torch
import triton
import triton.language as tl


@triton.jit
def padded_attention_kernel(q_ptr, k_ptr, v_ptr, mask_ptr, o_ptr, M, N, sm_scale,
                            D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    b = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + (b * M + offs_m[:, None]) * D + offs_d[None, :], mask=offs_m[:, None] < M, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    for start_n in range(0, N, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        in_range = offs_n < N
        k = tl.load(k_ptr + (b * N + offs_n[None, :]) * D + offs_d[:, None], mask=in_range[None, :], other=0.0)
        v = tl.load(v_ptr + (b * N + offs_n[:, None]) * D + offs_d[None, :], mask=in_range[:, None], other=0.0)
        keep = tl.load(mask_ptr + b * N + offs_n, mask=in_range, other=0) != 0
        qk = tl.dot(q, k) * sm_scale
        qk = tl.where(keep[None, :], qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_ij[:, None])  # expect: KL124
        alpha = tl.exp(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_ij
    out = acc / l_i[:, None]
    tl.store(o_ptr + (b * M + offs_m[:, None]) * D + offs_d[None, :], out, mask=offs_m[:, None] < M)


def run(q, k, v, key_mask):
    """softmax(q k^T / sqrt(D), keys where ``key_mask`` is 0 excluded) v, per batch entry, fp32."""
    B, M, D = q.shape
    N = k.shape[1]
    o = torch.empty(B, M, D, device=q.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 32), B)
    padded_attention_kernel[grid](q, k, v, key_mask, o, M, N, D ** -0.5, D=D, BLOCK_M=32, BLOCK_N=32)
    return o
