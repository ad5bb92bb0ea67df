"""Kernels specialised for one model's fixed sizes, whose loops over those sizes are
`tl.static_range` (fully unrolled, bad) or `range` (a real loop, good), with the same tiles:
a projection GEMM over its constexpr K (64 K tiles of 64), attention over a constexpr sequence
of 32 key blocks, and a cross-entropy over a constexpr vocabulary of 32 chunks, with
`tl.dot`, row reductions and `tl.where` on 2D tiles in the loop bodies."""
import torch
import triton
import triton.language as tl

#: The model sizes the kernels are specialised for (constexpr, so the loops over them have
#: trip counts the compiler knows).
HIDDEN = 4096
SEQ_LEN = 2048
VOCAB = 16384


@triton.jit
def linear_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group_id = pid // (GROUP_M * num_pid_n)
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % (GROUP_M * num_pid_n)) % group_size_m
    pid_n = (pid % (GROUP_M * num_pid_n)) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * N + offs_bn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(K // BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm[:, None] * N + offs_cn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def attention_kernel(
    q_ptr, k_ptr, v_ptr, o_ptr, sm_scale,
    SEQ: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    start_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * SEQ * HEAD_DIM
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :])
    kt_ptrs = k_ptr + base + offs_n[None, :] * HEAD_DIM + offs_d[:, None]
    v_ptrs = v_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    for start_n in range(0, SEQ, BLOCK_N):
        kt = tl.load(kt_ptrs + start_n * HEAD_DIM)
        qk = tl.dot(q, kt) * qk_scale
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.exp2(qk - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptrs + start_n * HEAD_DIM)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], acc.to(o_ptr.dtype.element_ty))


@triton.jit
def cross_entropy_kernel(
    logits_ptr, labels_ptr, loss_ptr, n_rows,
    V: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_V: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows < n_rows
    labels = tl.load(labels_ptr + rows, mask=row_ok, other=0)
    cols = tl.arange(0, BLOCK_V)
    row_ptrs = logits_ptr + rows.to(tl.int64)[:, None] * V + cols[None, :]
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_M], tl.float32)
    target = tl.zeros([BLOCK_M], tl.float32)
    for start in range(0, V, BLOCK_V):
        x = tl.load(row_ptrs + start, mask=row_ok[:, None], other=0.0).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), axis=1)
        target += tl.sum(tl.where(start + cols[None, :] == labels[:, None], x, 0.0), axis=1)
        m = m_new
    tl.store(loss_ptr + rows, m + tl.log(s) - target, mask=row_ok)


def linear(a, b):
    M, k = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    assert k == HIDDEN
    linear_kernel[grid](a, b, c, M, N, K=HIDDEN, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8,
                        num_warps=8, num_stages=3)
    return c


def attention(q, k, v):
    heads, seq, head_dim = q.shape
    assert seq == SEQ_LEN
    o = torch.empty_like(q)
    block_m, warps = (128, 4) if head_dim == 64 else (128, 8)
    attention_kernel[(SEQ_LEN // block_m, heads)](q, k, v, o, head_dim ** -0.5, SEQ=SEQ_LEN, HEAD_DIM=head_dim,
                                                  BLOCK_M=block_m, BLOCK_N=64, num_warps=warps, num_stages=3)
    return o


def cross_entropy(logits, labels):
    n_rows, vocab = logits.shape
    assert vocab == VOCAB
    loss = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
    cross_entropy_kernel[(triton.cdiv(n_rows, 4),)](logits, labels, loss, n_rows, V=VOCAB, BLOCK_M=4, BLOCK_V=512,
                                                    num_warps=4)
    return loss


def run(kind, **tensors):
    return {"linear": linear, "attention": attention, "cross_entropy": cross_entropy}[kind](**tensors)
