"""Inputs and the torch reference for KL136 (unmasked-tail-tile): the whole buffer, its first n
elements scaled by 2 and the 1024 after them left at -1."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    return {"x": torch.randn(case["n"], generator=generator).to(dtype).to(device)}


def reference(x):
    buffer = torch.full((x.numel() + 1024,), -1.0, dtype=x.dtype, device=x.device)
    buffer[: x.numel()] = x * 2.0
    return buffer
