import torch


def make_inputs(case, device):
    gen = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(case["m"], case["k"], generator=gen).to(torch.float16)
    b = torch.randn(case["n"], case["k"], generator=gen).to(torch.float16)
    return {"a": a.to(device), "b": b.to(device)}


def reference(a, b):
    return a.float() @ b.float().t()
