"""Scale a vector: the load is masked, the store is not (the mask was computed and not passed to
the store). The output is the first n elements of a larger buffer, like a slice of a batch, so
the last program's extra lanes overwrite what follows instead of leaving the allocation."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * scale)  # expect: KL136


def run(x):
    n = x.numel()
    buffer = torch.full((n + 1024,), -1.0, dtype=x.dtype, device=x.device)
    out = buffer[:n]
    scale_kernel[(triton.cdiv(n, 1024),)](x, out, n, 2.0, BLOCK=1024)
    return buffer
