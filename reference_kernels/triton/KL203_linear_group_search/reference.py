"""Inputs, the torch reference and the FLOP count for KL203 (linear-group-search): groups of
uneven size (some empty), their row offsets into A and the offsets of their first row tile."""
import torch

BLOCK_M = 64


def _sizes(case):
    generator = torch.Generator().manual_seed(1)
    sizes = torch.randint(0, 2 * case["rows_per_group"] + 1, (case["groups"],), generator=generator)
    sizes[0] = 0  # an empty group
    return sizes


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    dtype = getattr(torch, case["dtype"])
    sizes = _sizes(case)
    tiles = (sizes + BLOCK_M - 1) // BLOCK_M
    zero = torch.zeros(1, dtype=torch.int64)
    row_starts = torch.cat([zero, sizes.cumsum(0)]).to(torch.int32)
    tile_starts = torch.cat([zero, tiles.cumsum(0)]).to(torch.int32)
    a = (torch.randn(int(sizes.sum()), case["k"], generator=generator) * 0.1).to(dtype)
    b = (torch.randn(case["groups"], case["k"], case["n"], generator=generator) * 0.1).to(dtype)
    return {"a": a.to(device), "b": b.to(device), "row_starts": row_starts.to(device),
            "tile_starts": tile_starts.to(device), "total_tiles": int(tiles.sum())}


def reference(a, b, row_starts, tile_starts, total_tiles):
    starts = row_starts.tolist()
    c = torch.empty((a.shape[0], b.shape[2]), dtype=a.dtype, device=a.device)
    for g in range(b.shape[0]):
        rows = slice(starts[g], starts[g + 1])
        c[rows] = torch.matmul(a[rows].float(), b[g].float()).to(a.dtype)
    return c


def work(case):
    return 2 * int(_sizes(case).sum()) * case["n"] * case["k"], "FLOP"
