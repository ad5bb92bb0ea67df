"""Inputs and the torch reference for KL117 (tile-index-as-offset)."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    x = torch.randn(case["n"], generator=generator).to(dtype)
    y = torch.randn(case["n"], generator=generator).to(dtype)
    return {"x": x.to(device), "y": y.to(device)}


def reference(x, y):
    return x + y
