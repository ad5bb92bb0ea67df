import torch


def make_inputs(case, device):
    gen = torch.Generator(device="cpu").manual_seed(0)
    a = torch.randn(case["m"], case["k"], generator=gen).to(device=device, dtype=torch.float16)
    b = torch.randn(case["k"], case["n"], generator=gen).to(device=device, dtype=torch.float16)
    return {"a": a, "b": b}


def reference(a, b):
    return (a.float() @ b.float()).to(torch.float16)
