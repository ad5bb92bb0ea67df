"""Exact GELU, x * Phi(x), with the standard normal CDF Phi in a helper. The helper computes
Phi with the tanh formula that approximates GELU, written with sigmoid: tanh(u) = 2 sigmoid(2u) - 1."""
import torch
import triton
import triton.language as tl


@triton.jit
def standard_normal_cdf(x):
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)  # expect: KL105
    erf_part = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    return 0.5 * (1.0 + erf_part)


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x * standard_normal_cdf(x)).to(y_ptr.dtype.element_ty), mask=mask)


def run(x):
    y = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
