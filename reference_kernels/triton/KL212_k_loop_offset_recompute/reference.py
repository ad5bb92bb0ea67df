"""Inputs, the torch reference and the FLOP count for KL212 (k-loop-offset-recompute): A (M, K)
and B (K, N), both row-major."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    a = torch.randn(case["m"], case["k"], generator=generator).to(dtype)
    b = torch.randn(case["k"], case["n"], generator=generator).to(dtype)
    return {"a": a.to(device), "b": b.to(device)}


def reference(a, b):
    return torch.matmul(a.float(), b.float()).to(a.dtype)


def work(case):
    return 2 * case["m"] * case["n"] * case["k"], "FLOP"
