import torch


def make_inputs(case, device):
    gen = torch.Generator(device="cpu").manual_seed(0)
    x = 3.0 * torch.randn(case["n"], generator=gen, dtype=torch.float32)
    return {"x": x.to(device=device, dtype=getattr(torch, case["dtype"]))}


def reference(x):
    return torch.nn.functional.gelu(x.float(), approximate="none").to(x.dtype)
