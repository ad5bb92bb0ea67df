"""Inputs, the torch reference and the bytes moved for KL146 (float-scalar-fp64-under-compile)."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(case["rows"], case["cols"], generator=generator).to(torch.float16)
    b = torch.randn(case["rows"], case["cols"], generator=generator).to(torch.float16)
    return {"a": a.to(device), "b": b.to(device), "gate_multiplier": 0.7}


def reference(a, b, gate_multiplier):
    x = a.float() * gate_multiplier
    return (x * torch.sigmoid(x)).to(b.dtype) * b


def work(case):
    return case["rows"] * case["cols"] * 2 * 3, "B"
