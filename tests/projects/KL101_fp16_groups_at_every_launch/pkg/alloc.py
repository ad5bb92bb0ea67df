import torch


def make_group(shapes, device="cuda"):
    return [torch.randn(shape, device=device, dtype=torch.float16) for shape in shapes]
