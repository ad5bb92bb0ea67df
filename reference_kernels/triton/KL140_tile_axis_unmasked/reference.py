"""Inputs and the torch reference for KL140 (tile-axis-unmasked): the whole output buffer, its
first N columns the rows of x scaled by their factor and the 128 columns after them left at -1."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    x = torch.randn(case["m"], case["n"], generator=generator).to(dtype).to(device)
    scale = (torch.rand(case["m"], generator=generator) + 0.5).to(dtype).to(device)
    return {"x": x, "scale": scale}


def reference(x, scale):
    m, n = x.shape
    buffer = torch.full((m, n + 128), -1.0, dtype=x.dtype, device=x.device)
    buffer[:, :n] = x * scale[:, None]
    return buffer
