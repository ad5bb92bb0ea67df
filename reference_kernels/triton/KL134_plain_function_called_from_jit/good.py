"""SiLU over a vector; the activation is a helper decorated with @triton.jit."""
import torch
import triton
import triton.language as tl


@triton.jit
def silu(x):
    return x / (1.0 + tl.exp(-x))


@triton.jit
def silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, silu(x), mask=mask)


def run(x):
    out = torch.empty_like(x)
    n = x.numel()
    silu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
