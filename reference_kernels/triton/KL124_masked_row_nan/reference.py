import torch


def make_inputs(case, device):
    """Left-padded batch: entry b has ``pads[b]`` masked keys in front, at least one key kept."""
    B, M, N, D = case["batch"], case["queries"], case["keys"], case["dim"]
    dtype = getattr(torch, case["dtype"])
    q = torch.randn(B, M, D, device=device, dtype=dtype)
    k = torch.randn(B, N, D, device=device, dtype=dtype)
    v = torch.randn(B, N, D, device=device, dtype=dtype)
    pads = torch.tensor(case["pads"], device=device)
    key_mask = (torch.arange(N, device=device)[None, :] >= pads[:, None]).to(torch.int8)
    return {"q": q, "k": k, "v": v, "key_mask": key_mask}


def reference(q, k, v, key_mask):
    s = torch.einsum("bmd,bnd->bmn", q.float(), k.float()) * q.shape[-1] ** -0.5
    s = s.masked_fill(key_mask[:, None, :] == 0, float("-inf"))
    return torch.einsum("bmn,bnd->bmd", torch.softmax(s, dim=-1), v.float())
