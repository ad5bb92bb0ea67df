import torch


def make_inputs(case, device):
    # The sequence is a view one element into its buffer (a row of a packed tensor), so the element
    # before it is real memory holding a nonzero value: reading it shows, faulting does not hide it.
    gen = torch.Generator(device="cpu").manual_seed(0)
    buffer = torch.randn(case["n"] + 1, generator=gen) + 5.0
    return {"x": buffer.to(device)[1:]}


def reference(x):
    out = x.clone()
    out[1:] = x[1:] - x[:-1]
    return out
