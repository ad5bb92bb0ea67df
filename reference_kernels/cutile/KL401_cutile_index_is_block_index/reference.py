import torch


def make_inputs(case, device):
    gen = torch.Generator(device="cpu").manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    a = torch.randn(case["n"], generator=gen).to(device=device, dtype=dtype)
    b = torch.randn(case["n"], generator=gen).to(device=device, dtype=dtype)
    return {"a": a, "b": b, "tile": case["tile"]}


def reference(a, b, tile):
    return a + b
