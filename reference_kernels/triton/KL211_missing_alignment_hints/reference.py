"""Inputs, the torch reference and the bytes moved for KL211 (missing-alignment-hints): a list of
equally sized tensor pairs (sizes are multiples of 16 elements, as the kernel's host asserts)."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    xs = [torch.randn(case["numel"], generator=generator).to(dtype).to(device) for _ in range(case["tensors"])]
    ys = [torch.randn(case["numel"], generator=generator).to(dtype).to(device) for _ in range(case["tensors"])]
    return {"xs": xs, "ys": ys, "alpha": 0.5}


def reference(xs, ys, alpha):
    return [(y.float() + alpha * x.float()).to(y.dtype) for x, y in zip(xs, ys)]


def work(case):
    itemsize = torch.empty((), dtype=getattr(torch, case["dtype"])).element_size()
    return 3 * case["tensors"] * case["numel"] * itemsize, "B"
