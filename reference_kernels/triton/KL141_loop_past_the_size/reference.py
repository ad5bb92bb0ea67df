"""Inputs and the torch reference for KL141 (loop-past-the-size): the fp32 sum of each row."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    return {"x": torch.randn(case["m"], case["n"], generator=generator).to(dtype).to(device)}


def reference(x):
    return x.float().sum(dim=1)
