import torch
import triton

from pkg.kernels import rope_kernel


def apply_rope(q, cos, sin):
    B, H, T, D = q.shape
    grid = (triton.cdiv(T, 64), B * H)  # expect: KL126
    rope_kernel[grid](q, cos, sin, T, D=D, BLOCK_T=64)
    return q


def apply_rope_checked(q, cos, sin):
    B, H, T, D = q.shape
    if B * H > 65535:
        raise ValueError("batch * heads exceeds the grid's axis-1 limit")
    grid = (triton.cdiv(T, 64), B * H)  # ok: KL126
    rope_kernel[grid](q, cos, sin, T, D=D, BLOCK_T=64)
    return q
