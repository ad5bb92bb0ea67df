"""Batched small matrix products, one program per batch entry: the 2D tile from ``tl.dot`` is
flattened and stored with 1D offsets into a contiguous [B, M, N] output. The flattening uses
``tl.view``."""
import torch
import triton
import triton.language as tl


@triton.jit
def batched_mm_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + pid * M * K + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + pid * K * N + rk[:, None] * N + rn[None, :])
    acc = tl.dot(a, b)
    flat = tl.view(acc, (M * N,))  # expect: KL127
    tl.store(c_ptr + pid * M * N + tl.arange(0, M * N), flat)


def run(a, b):
    """``a @ b`` for contiguous ``a`` [B, M, K] and ``b`` [B, K, N], as fp32 [B, M, N]."""
    B, M, K = a.shape
    N = b.shape[2]
    c = torch.empty(B, M, N, device=a.device, dtype=torch.float32)
    batched_mm_kernel[(B,)](a, b, c, M=M, N=N, K=K)
    return c
