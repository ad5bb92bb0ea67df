"""Inputs, the torch reference and the FLOP count for KL204 (broadcast-dot): one shared (M, K)
matrix times a batch of (K, N) matrices."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    w = torch.randn(case["m"], case["k"], generator=generator).to(dtype)
    x = torch.randn(case["problems"], case["k"], case["n"], generator=generator).to(dtype)
    return {"w": w.to(device), "x": x.to(device)}


def reference(w, x):
    return torch.matmul(w.float(), x.float()).to(x.dtype)


def work(case):
    return 2 * case["problems"] * case["m"] * case["n"] * case["k"], "FLOP"
