"""Copy a (M, N) fp16 matrix tile by tile through shared memory with TMA, one 128x128 tile per
CTA (one warp).

A standalone transaction barrier: one elected thread initialises it and sets the tile's byte
count, and a CTA barrier publishes it, with no `mbarrier_init_fence()` to order the init for
the async proxy; the TMA load completes it, the warp waits, and a TMA store writes the tile back (drained
before the kernel exits).
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.nvgpu import cpasync
from cutlass.cute.runtime import from_dlpack

TILE = (128, 128)
THREADS = 32


@cute.kernel
def tile_copy_kernel(atom_load: cute.CopyAtom, src: cute.Tensor, atom_store: cute.CopyAtom, dst: cute.Tensor,
                     smem_layout: cute.Layout, tile_bytes: cutlass.Constexpr[int]):
    bidx, bidy, _ = cute.arch.block_idx()
    smem = cutlass.utils.SmemAllocator()
    mbar = smem.allocate_array(cutlass.Int64, num_elems=1)
    s_tile = smem.allocate_tensor(cutlass.Float16, smem_layout, byte_alignment=1024)

    with cute.arch.elect_one():
        cute.arch.mbarrier_init(mbar, 1)  # expect: KL303
        cute.arch.mbarrier_expect_tx(mbar, tile_bytes)
    cute.arch.barrier()

    g_src = cute.local_tile(src, TILE, (None, None))
    g_dst = cute.local_tile(dst, TILE, (None, None))
    tAsA, tAgA = cpasync.tma_partition(atom_load, 0, cute.make_layout(1), cute.group_modes(s_tile, 0, 2),
                                       cute.group_modes(g_src, 0, 2))
    tBsB, tBgB = cpasync.tma_partition(atom_store, 0, cute.make_layout(1), cute.group_modes(s_tile, 0, 2),
                                       cute.group_modes(g_dst, 0, 2))
    cute.copy(atom_load, tAgA[(None, bidx, bidy)], tAsA, tma_bar_ptr=mbar)
    with cute.arch.elect_one():
        cute.arch.mbarrier_arrive(mbar)
    cute.arch.mbarrier_wait(mbar, 0)
    cute.copy(atom_store, tBsB, tBgB[(None, bidx, bidy)])
    cute.arch.cp_async_bulk_commit_group()
    cute.arch.cp_async_bulk_wait_group(0, read=True)


@cute.jit
def tile_copy(src: cute.Tensor, dst: cute.Tensor):
    smem_layout = cute.make_layout(TILE, stride=(TILE[1], 1))
    atom_load, tma_src = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileG2SOp(), src, smem_layout, TILE)
    atom_store, tma_dst = cpasync.make_tiled_tma_atom(cpasync.CopyBulkTensorTileS2GOp(), dst, smem_layout, TILE)
    grid = cute.ceil_div((*src.layout.shape, 1), TILE)
    tile_copy_kernel(atom_load, tma_src, atom_store, tma_dst, smem_layout,
                     cute.size_in_bytes(cutlass.Float16, smem_layout)).launch(grid=grid, block=(THREADS, 1, 1))


_compiled = {}


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    src, dst = from_dlpack(x, assumed_align=16), from_dlpack(out, assumed_align=16)
    key = tuple(x.shape)
    if key not in _compiled:
        _compiled[key] = cute.compile(tile_copy, src, dst)
    _compiled[key](src, dst)
    torch.cuda.synchronize()
    return out
