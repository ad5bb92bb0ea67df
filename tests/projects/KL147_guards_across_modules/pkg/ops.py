import torch
import triton
import triton.language as tl

from .utils import input_guard


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + tl.program_id(0) * n + offs, tl.cumsum(x, axis=0), mask=offs < n)


@input_guard
def cumsum(x):
    y = torch.empty_like(x)
    cumsum_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)  # ok: KL147
    return y


@input_guard
def cumsum_again(x):
    y = torch.empty_like(x)
    cumsum_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)  # ok: KL147
    return y
