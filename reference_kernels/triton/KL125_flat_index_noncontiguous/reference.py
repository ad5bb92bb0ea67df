import torch


def make_inputs(case, device):
    """``layout``: "transposed" (a ``.t()`` view), "column-slice" (the first columns of a wider
    buffer, as a q/k/v slice of a fused projection) or "dense"."""
    dtype = getattr(torch, case["dtype"])
    M, N = case["rows"], case["cols"]
    if case["layout"] == "transposed":
        x = torch.randn(N, M, device=device, dtype=dtype).t()
    elif case["layout"] == "column-slice":
        x = torch.randn(M, 3 * N, device=device, dtype=dtype)[:, :N]
    else:
        x = torch.randn(M, N, device=device, dtype=dtype)
    weight = torch.rand(N, device=device, dtype=dtype) + 0.5
    return {"x": x, "weight": weight}


def reference(x, weight):
    xf = x.float()
    y = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * weight.float()
    return y.to(x.dtype)
