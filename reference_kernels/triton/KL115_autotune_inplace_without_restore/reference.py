"""Inputs and the torch reference for KL115 (autotune-inplace-without-restore)."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    x = torch.randn(case["n"], generator=generator).to(dtype)
    y = torch.randn(case["n"], generator=generator).to(dtype)
    return {"x": x.to(device), "y": y.to(device), "alpha": 0.5}


def reference(x, y, alpha):
    return (x.float() + alpha * y.float()).to(x.dtype)
