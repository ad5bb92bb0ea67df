"""Inputs and the torch reference for KL121 (wrong-dtype-map), as for the KL101 pair."""
import torch


def make_inputs(case, device):
    """Each group is the first ``cols`` columns of a ``row_stride``-wide buffer, like one
    projection sliced out of a fused QKV output: the kind of view per-group strides exist for."""
    gen = torch.Generator(device=device).manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    groups = [
        torch.randn(rows, case["row_stride"], generator=gen, device=device, dtype=dtype)[:, :case["cols"]]
        for rows in case["rows"]
    ]
    return {"groups": groups}


def reference(groups):
    return torch.cat([a.sum(dim=1, dtype=torch.float32) for a in groups])
