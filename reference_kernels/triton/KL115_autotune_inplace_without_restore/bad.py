"""In-place axpy (x += alpha * y, an optimizer-style update) autotuned over two block sizes; the
autotuner times both configs on the caller's `x`."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 256}, num_warps=2),
        triton.Config({"BLOCK": 1024}, num_warps=4),
    ],
    key=["n"],
)
@triton.jit
def axpy_(x_ptr, y_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(x_ptr + offs, x + alpha * y, mask=mask)  # expect: KL115


def run(x, y, alpha):
    n = x.numel()
    axpy_[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, alpha, n)
    return x
