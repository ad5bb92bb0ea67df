import torch


def make_inputs(case, device):
    """The first ``cols`` columns of a ``row_stride``-wide buffer (a slice of a fused projection)."""
    gen = torch.Generator(device=device).manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    buffer = torch.randn(case["rows"], case["row_stride"], generator=gen, device=device, dtype=dtype)
    return {"x": buffer[:, :case["cols"]]}


def reference(x):
    return x.sum(dim=1, dtype=torch.float32)
