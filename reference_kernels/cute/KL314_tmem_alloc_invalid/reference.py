import torch


def make_inputs(case, device):
    return {"x": torch.zeros(case["rows"], 128, dtype=torch.float32, device=device)}


def reference(x):
    # The pair compiles for sm_100a and runs nothing: `run` returns its input.
    return x
