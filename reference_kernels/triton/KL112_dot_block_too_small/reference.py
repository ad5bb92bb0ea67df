import torch


def make_inputs(case, device):
    gen = torch.Generator(device="cpu").manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    a = torch.randn(case["m"], case["k"], generator=gen) / case["k"] ** 0.5
    b = torch.randn(case["k"], case["n"], generator=gen)
    return {"a": a.to(device=device, dtype=dtype), "b": b.to(device=device, dtype=dtype)}


def reference(a, b):
    return a.float() @ b.float()
