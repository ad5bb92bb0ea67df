"""Inputs, the torch reference and the bytes moved for KL207 (per-tensor-launch-loop): a list of
same-sized tensors concatenated into one flat buffer."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    tensors = [torch.randn(case["numel"], generator=generator).to(dtype).to(device) for _ in range(case["tensors"])]
    return {"tensors": tensors}


def reference(tensors):
    return torch.cat([t.reshape(-1) for t in tensors])


def work(case):
    itemsize = torch.empty((), dtype=getattr(torch, case["dtype"])).element_size()
    return 2 * case["tensors"] * case["numel"] * itemsize, "B"
