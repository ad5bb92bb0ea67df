"""Inputs and the torch reference for KL108 (grid-ignores-autotune)."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    x = torch.randn(case["rows"], case["cols"], generator=generator).to(dtype)
    w = (torch.rand(case["cols"], generator=generator) + 0.5).to(dtype)
    return {"x": x.to(device), "w": w.to(device)}


def reference(x, w):
    return x * w[None, :]
