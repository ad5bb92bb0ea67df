"""Exact GELU, x * Phi(x) with Phi(x) = (1 + erf(x / sqrt(2))) / 2, on fp16 or bf16 tensors.
The loaded half-precision value goes into erf as it is."""
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    cdf = 0.5 * (1.0 + tl.math.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, (x * cdf).to(y_ptr.dtype.element_ty), mask=mask)


def run(x):
    y = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y
