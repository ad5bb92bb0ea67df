"""Inputs, the torch reference and the bytes moved for KL208 (split-dim-reshape): q is
(batch, seq, heads, head_dim); cos and sin are (seq, head_dim // 2) in fp32."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    batch, heads, seq, dim = case["batch"], case["heads"], case["seq"], case["head_dim"]
    q = torch.randn(batch, seq, heads, dim, generator=generator).to(dtype)
    angles = torch.outer(torch.arange(seq, dtype=torch.float32),
                         1.0 / 10000 ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
    return {"q": q.to(device), "cos": angles.cos().to(device), "sin": angles.sin().to(device)}


def reference(q, cos, sin):
    half = q.shape[-1] // 2
    cos, sin = cos[:, None, :], sin[:, None, :]
    x1, x2 = q[..., :half].float(), q[..., half:].float()
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).to(q.dtype)


def work(case):
    itemsize = torch.empty((), dtype=getattr(torch, case["dtype"])).element_size()
    return 2 * case["batch"] * case["heads"] * case["seq"] * case["head_dim"] * itemsize, "B"
