"""Inputs and the torch reference for KL120 (unmasked-padded-block).

`x` is a view of the first rows of a larger buffer, like a slice of a batch: the last row's
padding lanes read the next row of the buffer instead of leaving the allocation, so the run shows
the wrong numbers rather than depending on whether an out-of-bounds read faults."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    buffer = torch.randn(case["rows"] + 1, case["cols"], generator=generator).to(dtype).to(device)
    return {"x": buffer[: case["rows"]]}


def reference(x):
    return torch.softmax(x.float(), dim=-1).to(x.dtype)
