"""Inputs and the torch reference for KL143 (mask-longer-than-tensor): the whole output buffer,
its first N - 1 columns the differences of neighbouring columns of x and the 64 after them left
at -1."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    return {"x": torch.randn(case["m"], case["n"], generator=generator).to(dtype).to(device)}


def reference(x):
    m, n = x.shape
    buffer = torch.full((m, n + 63), -1.0, dtype=x.dtype, device=x.device)
    buffer[:, : n - 1] = x[:, 1:] - x[:, :-1]
    return buffer
