"""Many small matmuls that share one left operand, Y[b] = W @ X[b] (the DFT step of an FFT): each
program takes BATCH problems at once, broadcasts W to (BATCH, M, K) and multiplies with a 3D
`tl.dot` (bad), or takes one problem and multiplies the 2D tiles directly (good)."""
import torch
import triton
import triton.language as tl


@triton.jit
def shared_weight_bmm_kernel(
    w_ptr, x_ptr, y_ptr, n_problems,
    M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, BATCH: tl.constexpr,
):
    pid = tl.program_id(0)
    offs_b = pid * BATCH + tl.arange(0, BATCH)
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    offs_k = tl.arange(0, K)
    w = tl.load(w_ptr + offs_m[:, None] * K + offs_k[None, :])
    w = tl.broadcast_to(w[None, :, :], (BATCH, M, K))  # expect: KL204
    x_ptrs = x_ptr + offs_b[:, None, None] * (K * N) + offs_k[None, :, None] * N + offs_n[None, None, :]
    x = tl.load(x_ptrs, mask=offs_b[:, None, None] < n_problems, other=0.0)
    y = tl.dot(w, x)
    y_ptrs = y_ptr + offs_b[:, None, None] * (M * N) + offs_m[None, :, None] * N + offs_n[None, None, :]
    tl.store(y_ptrs, y.to(y_ptr.dtype.element_ty), mask=offs_b[:, None, None] < n_problems)


def run(w, x):
    n_problems, K, N = x.shape
    M = w.shape[0]
    y = torch.empty((n_problems, M, N), dtype=x.dtype, device=x.device)
    batch = 8
    shared_weight_bmm_kernel[(triton.cdiv(n_problems, batch),)](w, x, y, n_problems, M=M, N=N, K=K, BATCH=batch)
    return y
