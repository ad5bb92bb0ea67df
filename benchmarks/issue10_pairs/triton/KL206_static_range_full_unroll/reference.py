"""Inputs, the torch reference and the FLOP count for KL206 (static-range-full-unroll): a batch of
strictly lower-triangular blocks A; the output is (I + A)^-1 per block."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    bs = case["bs"]
    a = torch.randn(case["blocks"], bs, bs, generator=generator) * (0.5 / bs ** 0.5)
    a = torch.tril(a, diagonal=-1).to(getattr(torch, case["dtype"]))
    return {"a": a.to(device)}


def reference(a):
    eye = torch.eye(a.shape[-1], dtype=torch.float64, device=a.device)
    return torch.linalg.inv(eye + a.double()).to(a.dtype)


def work(case):
    # Per row i: a masked row extraction and a BS x BS multiply-add, both over the whole tile.
    return case["blocks"] * (case["bs"] - 1) * 4 * case["bs"] ** 2, "FLOP", "fp32"
