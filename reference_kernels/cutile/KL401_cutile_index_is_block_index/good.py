"""Vector add whose tile index is the block id: cuTile counts tiles."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def vector_add(a, b, c, TILE: ConstInt):
    bid = ct.bid(0)
    a_tile = ct.load(a, index=(bid,), shape=(TILE,))
    b_tile = ct.load(b, index=(bid,), shape=(TILE,))
    ct.store(c, index=(bid,), tile=a_tile + b_tile)


def run(a, b, tile):
    c = torch.empty_like(a)
    grid = (ct.cdiv(a.shape[0], tile),)
    ct.launch(torch.cuda.current_stream(), grid, vector_add, (a, b, c, tile))
    return c
