import torch

from confirm_recipes.grid import chunk_cumsum


def example():
    raw = torch.randn(2, 100, 4)
    weights = torch.randn(4, dtype=torch.float32)
    return chunk_cumsum(raw, weights, chunk_size=16)
