"""Inputs, the torch reference and the work for KL206 (static-range-full-unroll). A case names
its `kind` (the kernel): `linear` C = A @ B with A (M, K) and B (K, N); `attention` softmax(Q K^T
/ sqrt(d)) V per head, non-causal; `cross_entropy` per-row loss of (rows, vocab) logits."""
import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    kind = case["kind"]
    if kind == "linear":
        a = torch.randn(case["m"], case["k"], generator=generator)
        b = torch.randn(case["k"], case["n"], generator=generator) / case["k"] ** 0.5
        tensors = {"a": a.to(dtype), "b": b.to(dtype)}
    elif kind == "attention":
        shape = (case["heads"], case["seq"], case["head_dim"])
        # q scaled so the softmax is peaked and the outputs are O(1), not averages near 0.
        q, k, v = (torch.randn(shape, generator=generator) for _ in range(3))
        tensors = {"q": (3 * q).to(dtype), "k": k.to(dtype), "v": v.to(dtype)}
    else:
        logits = torch.randn(case["rows"], case["vocab"], generator=generator) * 4
        labels = torch.randint(0, case["vocab"], (case["rows"],), generator=generator)
        tensors = {"logits": logits.to(dtype), "labels": labels}
    return {"kind": kind, **{name: t.to(device) for name, t in tensors.items()}}


def reference(kind, **tensors):
    if kind == "linear":
        a, b = tensors["a"], tensors["b"]
        return torch.matmul(a.float(), b.float()).to(a.dtype)
    if kind == "attention":
        q, k, v = tensors["q"], tensors["k"], tensors["v"]
        scores = torch.matmul(q.float(), k.float().transpose(1, 2)) * q.shape[-1] ** -0.5
        return torch.matmul(torch.softmax(scores, dim=-1), v.float()).to(q.dtype)
    logits, labels = tensors["logits"], tensors["labels"]
    return torch.nn.functional.cross_entropy(logits.float(), labels, reduction="none")


def work(case):
    kind = case["kind"]
    if kind == "linear":
        return 2 * case["m"] * case["n"] * case["k"], "FLOP"
    if kind == "attention":
        return 4 * case["heads"] * case["seq"] ** 2 * case["head_dim"], "FLOP"
    # Memory bound: every logit read once, plus the labels (int64) and the loss (fp32).
    return case["rows"] * (case["vocab"] * torch.finfo(getattr(torch, case["dtype"])).bits // 8 + 12), "B"
