"""Inputs and the torch reference for KL119 (descriptor-block-shape-frozen)."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    x = torch.randn(case["rows"], case["cols"], generator=generator).to(dtype)
    return {"x": x.to(device), "scale": 0.5}


def reference(x, scale):
    return x * scale
