"""Scale a vector: the load and the store are masked. The output is the first n elements of a
larger buffer, like a slice of a batch; what follows it is left as it was."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * scale, mask=mask)


def run(x):
    n = x.numel()
    buffer = torch.full((n + 1024,), -1.0, dtype=x.dtype, device=x.device)
    out = buffer[:n]
    scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, 2.0, BLOCK=1024)
    return buffer
