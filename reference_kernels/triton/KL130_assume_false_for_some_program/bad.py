"""First differences of a sequence, one tile per program: each program reads the last element of
the tile before it, except the first program. `tl.assume(pid > 0)` is false for that program."""
import torch
import triton
import triton.language as tl


@triton.jit
def diff_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.assume(pid > 0)  # expect: KL130
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    carry = tl.load(x_ptr + pid * BLOCK - 1, mask=pid > 0, other=0.0)
    prev = tl.where(tl.arange(0, BLOCK) == 0, carry, 0.0)
    shifted = tl.load(x_ptr + offs - 1, mask=mask & (tl.arange(0, BLOCK) > 0), other=0.0)
    tl.store(out_ptr + offs, x - prev - shifted, mask=mask)


def run(x):
    out = torch.empty_like(x)
    n = x.numel()
    diff_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
