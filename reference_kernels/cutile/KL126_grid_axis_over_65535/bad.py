"""Mean pooling over the sequence axis of a [B, T, H, D] tensor in cuTile, one block per
(batch, head) and tile of the head dimension, in the grid layout of attention kernels: the
batch x head product goes on grid axis 1 of `ct.launch`."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def mean_pool(x, out, T: ConstInt, H: ConstInt, TILE_D: ConstInt):
    i_d = ct.bid(0)
    i_bh = ct.bid(1)
    i_b, i_h = i_bh // H, i_bh % H
    tile = ct.load(x, index=(i_b, 0, i_h, i_d), shape=(1, T, 1, TILE_D))
    total = ct.sum(ct.astype(tile, ct.float32), axis=1)
    ct.store(out, index=(i_b, i_h, i_d), tile=ct.reshape(total, (1, 1, TILE_D)) * (1.0 / T))


def run(x):
    """Mean of ``x`` [B, T, H, D] over T, as [B, H, D] fp32."""
    B, T, H, D = x.shape
    out = torch.empty(B, H, D, device=x.device, dtype=torch.float32)
    TILE_D = 64
    grid = (ct.cdiv(D, TILE_D), B * H, 1)  # expect: KL126
    ct.launch(torch.cuda.current_stream(), grid, mean_pool, (x, out, T, H, TILE_D))
    return out
