"""Inputs and the torch reference for KL137 (block-pointer-without-boundary-check).

`x` is a view of the first rows of a larger buffer, like a slice of a batch: the last block's rows
past M read the buffer's next rows (ones) instead of leaving the allocation, so the run shows the
wrong sums rather than depending on whether an out-of-bounds read faults."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    rows, cols = case["rows"], case["cols"]
    buffer = torch.ones(rows + 64, cols, dtype=dtype)
    buffer[:rows] = torch.randn(rows, cols, generator=generator).to(dtype)
    return {"x": buffer.to(device)[:rows]}


def reference(x):
    return x.float().sum(dim=0)
