"""Inputs and the torch reference for KL107 (autotune-meta-conflict)."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(case["n"], generator=generator, dtype=getattr(torch, case["dtype"]))
    return {"x": x.to(device), "scale": 1.5, "shift": -0.25}


def reference(x, scale, shift):
    return x * scale + shift
