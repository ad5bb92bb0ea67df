"""What `ct.load` with no `padding_mode` (PaddingMode.UNDETERMINED) puts into the lanes of a tile
that overhangs the array, on the GPU it runs on, and whether a row sum over such tiles is right.

For each configuration the kernel copies every tile of a row, padded lanes included, into an
output wide enough to hold them; the lanes past N are then counted by value. The array is either
contiguous or a view of a wider buffer whose columns past N hold a sentinel (7.0), which shows
whether undetermined lanes read the memory that follows the row. A second kernel sums each row
over the same tiles without padding and is compared with torch.

usage: python padding_values.py OUT.json   (needs a GPU, torch and cuda.tile)
"""
import json
import sys

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
SENTINEL = 7.0


@ct.kernel
def copy_tiles(x, out, N: int, TILE: ConstInt):
    row = ct.bid(0)
    for j in range(ct.cdiv(N, TILE)):
        t = ct.load(x, index=(row, j), shape=(1, TILE))
        ct.store(out, index=(row, j), tile=t)


@ct.kernel
def row_sum(x, out, N: int, TILE: ConstInt):
    row = ct.bid(0)
    acc = ct.zeros((1,), dtype=ct.float32)
    for j in range(ct.cdiv(N, TILE)):
        t = ct.load(x, index=(row, j), shape=(1, TILE))
        acc = acc + ct.sum(ct.astype(t, ct.float32), axis=1)
    ct.store(out, index=(row,), tile=acc)


def measure(m, n, tile, dtype, layout):
    gen = torch.Generator(device="cpu").manual_seed(0)
    data = (torch.rand(m, n, generator=gen) + 0.5).to(dtype)
    if layout == "view-of-wider-buffer":
        wide = torch.full((m, n + tile), SENTINEL, dtype=dtype)
        wide[:, :n] = data
        x = wide.cuda()[:, :n]
    else:
        x = data.cuda().contiguous()
    tiles = -(-n // tile)
    out = torch.full((m, tiles * tile), -123.0, dtype=dtype, device="cuda")
    stream = torch.cuda.current_stream()
    ct.launch(stream, (m,), copy_tiles, (x, out, n, tile))
    sums = torch.empty(m, dtype=torch.float32, device="cuda")
    ct.launch(stream, (m,), row_sum, (x, sums, n, tile))
    torch.cuda.synchronize()
    tail = out[:, n:].float()
    expected = x.float().sum(dim=1)
    error = (sums - expected).abs()
    return {
        "m": m, "n": n, "tile": tile, "dtype": str(dtype).replace("torch.", ""), "layout": layout,
        "row_stride_bytes": x.stride(0) * x.element_size(),
        "padded_lanes": tail.numel(),
        "zero": int((tail == 0).sum()), "sentinel": int((tail == SENTINEL).sum()),
        "nan": int(tail.isnan().sum()), "untouched": int((tail == -123.0).sum()),
        "other": int(tail.numel() - (tail == 0).sum() - (tail == SENTINEL).sum() - tail.isnan().sum()
                     - (tail == -123.0).sum()),
        "data_lanes_exact": bool(torch.equal(out[:, :n], x)),
        "row_sum_max_abs_error": float(error.max()),
        # a NaN sum is wrong too (a comparison with NaN is False); the run of 2026-12-01
        # (runs/KL404-padding) used `error > tol` alone and so counted NaN rows as right
        "row_sum_rows_wrong": int(((error > 1e-3 * expected.abs().clamp(min=1)) | sums.isnan()).sum()),
    }


def main():
    results = []
    for dtype in (torch.float32, torch.float16):
        for n, tile in ((1000, 1024), (1001, 256), (3000, 1024)):
            for layout in ("contiguous", "view-of-wider-buffer"):
                try:
                    results.append(measure(1024, n, tile, dtype, layout))
                except Exception as error:  # record and go on: one configuration failing says something too
                    results.append({"n": n, "tile": tile, "dtype": str(dtype), "layout": layout,
                                    "error": f"{type(error).__name__}: {error}"[:500]})
                print(json.dumps(results[-1]), flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                   "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
