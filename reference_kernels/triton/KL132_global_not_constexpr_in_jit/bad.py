"""Dropout-style scaling with the unroll factor as a plain module constant, which Triton 3.0 and
later refuse to read in a kernel (FlagGems PR #118)."""
import torch
import triton
import triton.language as tl

UNROLL = 4


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    base = tl.program_id(0) * BLOCK * UNROLL  # expect: KL132
    for i in tl.static_range(UNROLL):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale, mask=offs < n)


def run(x, scale):
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 256 * 4),)](x, out, n, scale, BLOCK=256)
    return out
