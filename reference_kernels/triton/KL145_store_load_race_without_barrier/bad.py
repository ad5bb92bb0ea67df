"""Each program transposes one BLOCK x BLOCK tile through its own region of a global scratch
buffer: it stores the tile row-major, then loads it back column-major. The element a thread loads
was stored by another thread of the program, and nothing orders that store before the load."""
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_tiles_kernel(x_ptr, scratch_ptr, out_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    tile_offsets = pid * BLOCK * BLOCK + rows[:, None] * BLOCK + cols[None, :]
    tile = tl.exp(tl.load(x_ptr + tile_offsets))
    tl.store(scratch_ptr + tile_offsets, tile)
    transposed = tl.load(scratch_ptr + pid * BLOCK * BLOCK + cols[None, :] * BLOCK + rows[:, None])  # expect: KL145
    tl.store(out_ptr + tile_offsets, transposed)


def run(x):
    tiles, block, _ = x.shape
    scratch = torch.zeros_like(x)
    out = torch.empty_like(x)
    transpose_tiles_kernel[(tiles,)](x, scratch, out, BLOCK=block, num_warps=8)
    return out
