"""Inputs, the torch reference and the bytes moved for KL116 (autotune-key-not-a-parameter).

Cases run in order in one process per kernel: the first (narrow rows) is tuned first, so the bad
kernel, whose key holds only the dtype, keeps the narrow block for the wide cases after it."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(case["rows"], case["cols"], generator=generator)
    return {"x": x.to(device)}


def reference(x):
    return x.sum(dim=1)


def work(case):
    return case["rows"] * case["cols"] * 4, "B"
