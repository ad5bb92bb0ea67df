"""Row lookup: each block reads a row number from a table and copies that row. The row number is
loaded as a tile of shape (1,) and used as a `ct.load` index (cutile-python #66)."""
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def lookup_rows(lut, table, out, D: ConstInt):
    bid = ct.bid(0)
    row = ct.load(lut, index=(bid,), shape=(1,))
    values = ct.load(table, index=(row, 0), shape=(1, D))  # expect: KL405
    ct.store(out, index=(bid, 0), tile=values)


def run(lut, table):
    out = torch.empty((lut.shape[0], table.shape[1]), device=table.device, dtype=table.dtype)
    ct.launch(torch.cuda.current_stream(), (lut.shape[0],), lookup_rows, (lut, table, out, table.shape[1]))
    return out
