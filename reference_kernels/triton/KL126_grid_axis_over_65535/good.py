"""Mean pooling over the sequence axis of a [B, T, H, D] tensor, one program per (batch, head)
and chunk of the head dimension, in the grid layout of linear-attention pooling kernels: the
batch x head product goes on grid axis 0."""
import torch
import triton
import triton.language as tl


@triton.jit
def mean_pool_kernel(x_ptr, out_ptr, T, H: tl.constexpr, D: tl.constexpr, BLOCK_D: tl.constexpr):
    i_d = tl.program_id(1)
    i_bh = tl.program_id(0)
    i_b, i_h = i_bh // H, i_bh % H
    offs_d = i_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = offs_d < D
    acc = tl.zeros((BLOCK_D,), dtype=tl.float32)
    for t in range(0, T):
        row = ((i_b * T + t) * H + i_h).to(tl.int64) * D  # noqa: KL103
        acc += tl.load(x_ptr + row + offs_d, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + i_bh.to(tl.int64) * D + offs_d, acc / T, mask=mask)


def run(x):
    """Mean of ``x`` [B, T, H, D] over T, as [B, H, D] fp32."""
    B, T, H, D = x.shape
    out = torch.empty(B, H, D, device=x.device, dtype=torch.float32)
    BLOCK_D = 64
    grid = (B * H, triton.cdiv(D, BLOCK_D))
    mean_pool_kernel[grid](x, out, T, H=H, D=D, BLOCK_D=BLOCK_D)
    return out
