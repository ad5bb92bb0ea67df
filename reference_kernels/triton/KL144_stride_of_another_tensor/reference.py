"""Inputs and the torch reference for KL144 (stride-of-another-tensor): a buffer of M * N elements
whose first M * (N - 1) hold the differences of neighbouring columns of x, row after row, and the
M after them left at -1."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    return {"x": torch.randn(case["m"], case["n"], generator=generator).to(dtype).to(device)}


def reference(x):
    m, n = x.shape
    buffer = torch.full((m * n,), -1.0, dtype=x.dtype, device=x.device)
    buffer[: m * (n - 1)] = (x[:, 1:] - x[:, :-1]).reshape(-1)
    return buffer
