"""Inputs, the torch reference and the FLOP count for KL201 (raw-2d-load-dynamic-strides)."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    shape_a = (case["groups"], case["m"], case["k"])
    shape_b = (case["groups"], case["k"], case["n"])
    a = torch.randn(shape_a, generator=generator).to(dtype)
    b = torch.randn(shape_b, generator=generator).to(dtype)
    return {"a": a.to(device), "b": b.to(device)}


def reference(a, b):
    return torch.matmul(a.float(), b.float()).to(a.dtype)


def work(case):
    return 2 * case["groups"] * case["m"] * case["n"] * case["k"], "FLOP"
