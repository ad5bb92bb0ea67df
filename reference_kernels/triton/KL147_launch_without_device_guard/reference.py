import torch


def make_inputs(case, device):
    """The tensors live on GPU ``case["gpu"]`` while GPU 0 stays the current device, as under
    Hugging Face ``device_map="auto"`` with layers on both GPUs. ``touch_gpu0`` first makes GPU
    0's context (a model's first layers live there); ``peer`` enables peer access both ways by
    copying between the two GPUs first."""
    if device == "cuda":
        if case.get("touch_gpu0", True):
            torch.empty(1, device="cuda:0")
        if case.get("peer", False):
            torch.ones(1, device="cuda:0").to("cuda:1")
            torch.ones(1, device="cuda:1").to("cuda:0")
        device = f"cuda:{case['gpu']}"
    x = torch.randn(case["rows"], case["cols"], device=device, dtype=getattr(torch, case["dtype"]))
    bias = torch.randn(case["cols"], device=device, dtype=getattr(torch, case["dtype"]))
    return {"x": x, "bias": bias}


def reference(x, bias):
    return x * 0.5 + bias
