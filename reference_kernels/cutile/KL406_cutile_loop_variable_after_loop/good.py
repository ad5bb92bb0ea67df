"""Sum of each row's tiles, stored with the row's last tile as a second output. The last tile is
made before the loop, so it is defined whether or not the loop runs."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def row_sum_and_last(x, sums, lasts, T: ConstInt, TILE: ConstInt):
    bid = ct.bid(0)
    acc = ct.zeros((1, TILE), dtype=ct.float32)
    last = ct.zeros((1, TILE), dtype=ct.float32)
    for j in range(T):
        last = ct.load(x, index=(bid, j), shape=(1, TILE))
        acc = acc + last
    ct.store(sums, index=(bid, 0), tile=acc)
    ct.store(lasts, index=(bid, 0), tile=last)


def run(x):
    rows, cols = x.shape
    sums = torch.empty((rows, 64), device=x.device, dtype=torch.float32)
    lasts = torch.empty_like(sums)
    ct.launch(torch.cuda.current_stream(), (rows,), row_sum_and_last, (x, sums, lasts, cols // 64, 64))
    return sums, lasts
