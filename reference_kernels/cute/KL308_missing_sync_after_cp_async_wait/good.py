"""Transpose an (M, N) fp32 matrix through shared memory, 64x64 tiles, with cp.async.

Each CTA walks down one 64-column strip of the input. Tiles are copied into a three-slot ring
of shared memory with cp.async (one thread layout: each thread copies 4 consecutive floats of a
row), the next tile is prefetched while the current one is used, and every thread then reads
its output elements from the tile column by column, i.e. elements other threads copied. After
`cp_async_wait_group(1)` a CTA barrier makes every thread's copies visible before the
transposed read (and keeps a slot from being refilled while another warp still reads it).
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.nvgpu import cpasync
from cutlass.cute.runtime import from_dlpack

TILE = 64
PITCH = TILE + 4  # padded rows: fewer bank conflicts on the column reads, 16-byte aligned rows
STAGES = 3
THREADS = 256
VEC = 4


@cute.kernel
def transpose_kernel(src: cute.Tensor, dst: cute.Tensor, n_tiles: cutlass.Int32):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    atom = cute.make_copy_atom(
        cpasync.CopyG2SOp(cache_mode=cpasync.LoadCacheMode.GLOBAL), cutlass.Float32, num_bits_per_copy=128
    )
    g2s = cute.make_tiled_copy_tv(
        atom, cute.make_layout((THREADS // (TILE // VEC), TILE // VEC), stride=(TILE // VEC, 1)), cute.make_layout((1, VEC))
    )
    thr = g2s.get_slice(tidx)
    smem = cutlass.utils.SmemAllocator()
    s_tile = smem.allocate_tensor(
        cutlass.Float32, cute.make_layout((TILE, TILE, STAGES), stride=(PITCH, 1, TILE * PITCH)), byte_alignment=16
    )
    tG = thr.partition_S(cute.local_tile(src, (TILE, TILE), (None, bidx)))
    tS = thr.partition_D(s_tile)

    cute.copy(g2s, tG[None, None, None, 0], tS[None, None, None, 0])
    cute.arch.cp_async_commit_group()
    for k in cutlass.range(n_tiles):
        if k + 1 < n_tiles:
            cute.copy(g2s, tG[None, None, None, k + 1], tS[None, None, None, (k + 1) % STAGES])
        cute.arch.cp_async_commit_group()
        cute.arch.cp_async_wait_group(1)
        cute.arch.sync_threads()
        stage = k % STAGES
        col = tidx % TILE
        for i in cutlass.range_constexpr(TILE * TILE // THREADS):
            row = i * (THREADS // TILE) + tidx // TILE
            dst[bidx * TILE + row, k * TILE + col] = s_tile[col, row, stage]


@cute.jit
def transpose(src: cute.Tensor, dst: cute.Tensor):
    transpose_kernel(src, dst, cute.size(src, mode=[0]) // TILE).launch(
        grid=(cute.size(src, mode=[1]) // TILE, 1, 1), block=(THREADS, 1, 1)
    )


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty((x.shape[1], x.shape[0]), dtype=x.dtype, device=x.device)
    transpose(from_dlpack(x, assumed_align=16), from_dlpack(out, assumed_align=16))
    torch.cuda.synchronize()
    return out
