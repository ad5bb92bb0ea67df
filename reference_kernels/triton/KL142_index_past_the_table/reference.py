"""Inputs and the torch reference for KL142 (index-past-the-table): sorted segment starts of a
packed sequence and the total length; each segment's length."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    lengths = torch.randint(1, 100, (case["n"],), generator=generator, dtype=torch.int32)
    starts = torch.cumsum(lengths, 0, dtype=torch.int32) - lengths
    return {"starts": starts.to(device), "total": int(lengths.sum())}


def reference(starts, total):
    ends = torch.cat([starts[1:], torch.tensor([total], dtype=starts.dtype, device=starts.device)])
    return ends - starts
