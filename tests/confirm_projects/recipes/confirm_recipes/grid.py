import torch
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(g_ptr, w_ptr, o_ptr, T, H, BT: tl.constexpr):
    i_t, i_bh = tl.program_id(0), tl.program_id(1)
    i_b, i_h = i_bh // H, i_bh % H
    offs = i_t * BT + tl.arange(0, BT)
    mask = offs < T
    base = i_b.to(tl.int64) * T * H + i_h
    x = tl.load(g_ptr + base + offs * H, mask=mask, other=0.0) * tl.load(w_ptr + i_h)
    tl.store(o_ptr + base + offs * H, tl.cumsum(x, axis=0), mask=mask)


def chunk_cumsum(g: torch.Tensor, w: torch.Tensor, chunk_size: int) -> torch.Tensor:
    B, T, H = g.shape
    o = torch.empty_like(g)
    cumsum_kernel[(triton.cdiv(T, chunk_size), B * H)](g, w, o, T, H, BT=chunk_size)  # kernelint: KL126 here
    return o
