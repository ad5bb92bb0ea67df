import torch
import triton

from .kernels import decay_kernel


def chunk_decay(q, T, BT=64):
    g = torch.zeros(T, dtype=torch.float32, device=q.device)
    out = torch.empty_like(g)
    decay_kernel[(triton.cdiv(T, BT),)](g, out, T, BT=BT)
    return out
