"""Differences of neighbouring columns, the output addressed with the input's row stride: out has
N - 1 columns (row stride N - 1) but the launch passes x.stride(0) = N for it, so row r is written
r elements late and the last rows run past out. out is the front of a buffer of M * N elements
(a larger workspace), so the rows that spill land in memory the test reads back."""
import torch
import triton
import triton.language as tl


@triton.jit
def col_diff_kernel(x_ptr, out_ptr, N, stride_xm, stride_om, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    a = tl.load(x_ptr + row * stride_xm + cols, mask=cols < N - 1, other=0.0)
    b = tl.load(x_ptr + row * stride_xm + cols + 1, mask=cols < N - 1, other=0.0)
    tl.store(out_ptr + row * stride_om + cols, b - a, mask=cols < N - 1)


def run(x):
    x = x.contiguous()
    M, N = x.shape
    buffer = torch.full((M * N,), -1.0, dtype=x.dtype, device=x.device)
    out = buffer[: M * (N - 1)].view(M, N - 1)
    col_diff_kernel[(M,)](x, out, N, x.stride(0), x.stride(0), BLOCK_N=triton.next_power_of_2(N))  # expect: KL144
    return buffer
