import torch


def make_inputs(case, device):
    dtype = getattr(torch, case["dtype"])
    a = torch.randn(case["batch"], case["m"], case["k"], device=device, dtype=dtype)
    b = torch.randn(case["batch"], case["k"], case["n"], device=device, dtype=dtype)
    return {"a": a, "b": b}


def reference(a, b):
    return torch.bmm(a.float(), b.float())
