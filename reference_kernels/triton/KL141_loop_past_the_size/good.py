"""Sum each row, walking a pointer along the columns: the loop runs N // BLOCK_N + 1 times and
the load masks the columns past N, so the last iteration adds zeros. The matrix is the first N
columns of a wider buffer (like one head of a fused projection)."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N, stride_m, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    ptrs = x_ptr + row * stride_m + cols
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k in range(N // BLOCK_N + 1):
        acc += tl.load(ptrs, mask=cols < N - k * BLOCK_N, other=0.0).to(tl.float32)
        ptrs += BLOCK_N
    tl.store(out_ptr + row, tl.sum(acc))


def run(x):
    M, N = x.shape
    buffer = torch.ones((M, N + 256), dtype=x.dtype, device=x.device)
    buffer[:, :N] = x
    view = buffer[:, :N]
    out = torch.empty(M, dtype=torch.float32, device=x.device)
    row_sum_kernel[(M,)](view, out, N, view.stride(0), BLOCK_N=128)
    return out
