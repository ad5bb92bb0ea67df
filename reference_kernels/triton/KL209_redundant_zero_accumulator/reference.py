"""Inputs, the torch reference and the FLOP count for KL209 (redundant-zero-accumulator):
(heads, seq_len, head_dim) q, k, v; the score tile is rounded to the input dtype before the
second product, as the kernel does."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    shape = (case["heads"], case["seq_len"], case["head_dim"])
    q, k, v = (torch.randn(shape, generator=generator) * 0.1 for _ in range(3))
    return {"q": q.to(dtype).to(device), "k": k.to(dtype).to(device), "v": v.to(dtype).to(device)}


def reference(q, k, v):
    scores = torch.matmul(q.float(), k.float().transpose(1, 2)).to(q.dtype).float()
    return torch.matmul(scores, v.float()).to(q.dtype)


def work(case):
    return 4 * case["heads"] * case["seq_len"] ** 2 * case["head_dim"], "FLOP"
