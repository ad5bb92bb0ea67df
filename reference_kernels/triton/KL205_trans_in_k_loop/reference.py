"""Inputs, the torch reference and the FLOP count for KL205 (trans-in-k-loop): B is given
transposed, as a contiguous (N, K) tensor."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    a = torch.randn(case["m"], case["k"], generator=generator).to(dtype)
    bt = torch.randn(case["n"], case["k"], generator=generator).to(dtype)
    return {"a": a.to(device), "bt": bt.to(device)}


def reference(a, bt):
    return torch.matmul(a.float(), bt.float().T).to(a.dtype)


def work(case):
    return 2 * case["m"] * case["n"] * case["k"], "FLOP"
