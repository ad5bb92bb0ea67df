"""Zero a sequence outside the window [start, end): the window mask is built with `&`."""
import torch
import triton
import triton.language as tl


@triton.jit
def window_kernel(x_ptr, out_ptr, n, start, end, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_window = (offs >= start) & (offs < end)
    x = tl.load(x_ptr + offs, mask=in_window, other=0.0)
    tl.store(out_ptr + offs, x, mask=offs < n)


def run(x, start, end):
    out = torch.empty_like(x)
    n = x.numel()
    window_kernel[(triton.cdiv(n, 1024),)](x, out, n, start, end, BLOCK=1024)
    return out
