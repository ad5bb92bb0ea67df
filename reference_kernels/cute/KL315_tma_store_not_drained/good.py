"""Copy a (M, N) fp16 matrix tile by tile through shared memory with TMA, adding 1.

Each CTA loads a 128x128 tile with a TMA load (mbarrier-completed), every thread adds one to
its part of the tile in shared memory, and one TMA store writes the tile back. The issuing warp
waits until the copy engine has read the tile before the CTA exits.
"""
import torch

import cutlass
import cutlass.cute as cute
import cutlass.utils as utils
from cutlass.cute.nvgpu import cpasync
from cutlass.cute.runtime import from_dlpack

TILE_M = 128
TILE_N = 128
THREADS = 128


class TileAddOne:
    @cute.jit
    def __call__(self, src: cute.Tensor, dst: cute.Tensor):
        self.dtype = src.element_type
        smem_layout = cute.make_layout((TILE_M, TILE_N), stride=(TILE_N, 1))

        @cute.struct
        class SharedStorage:
            barrier_storage: cute.struct.MemRange[cutlass.Int64, 1]
            smem_data: cute.struct.Align[cute.struct.MemRange[self.dtype, cute.cosize(smem_layout)], 1024]

        self.shared_storage = SharedStorage
        self.num_tma_load_bytes = cute.size_in_bytes(self.dtype, smem_layout)
        cta_tiler = cute.product_each(smem_layout.shape)
        load_atom, load_tensor = cpasync.make_tiled_tma_atom(
            cpasync.CopyBulkTensorTileG2SOp(), src, smem_layout, cta_tiler
        )
        store_atom, store_tensor = cpasync.make_tiled_tma_atom(
            cpasync.CopyBulkTensorTileS2GOp(), dst, smem_layout, cta_tiler
        )
        grid = cute.ceil_div((*src.layout.shape, 1), (TILE_M, TILE_N))
        self.kernel(load_atom, load_tensor, store_atom, store_tensor, smem_layout).launch(
            grid=grid, block=(THREADS, 1, 1)
        )

    @cute.kernel
    def kernel(self, load_atom: cute.CopyAtom, load_tensor: cute.Tensor, store_atom: cute.CopyAtom,
               store_tensor: cute.Tensor, smem_layout: cute.Layout):
        bidx, bidy, _ = cute.arch.block_idx()
        tidx, _, _ = cute.arch.thread_idx()
        warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())
        smem = utils.SmemAllocator()
        storage = smem.allocate(self.shared_storage)
        barrier_ptr = storage.barrier_storage.data_ptr()
        if warp_idx == 0:
            with cute.arch.elect_one():
                cute.arch.mbarrier_init(barrier_ptr, 1)
                cute.arch.mbarrier_expect_tx(barrier_ptr, self.num_tma_load_bytes)
        cute.arch.mbarrier_init_fence()
        cute.arch.barrier()

        g_src = cute.local_tile(load_tensor, (TILE_M, TILE_N), (None, None))
        g_dst = cute.local_tile(store_tensor, (TILE_M, TILE_N), (None, None))
        s_tile = storage.smem_data.get_tensor(smem_layout)
        tAsA, tAgA = cpasync.tma_partition(
            load_atom, 0, cute.make_layout(1), cute.group_modes(s_tile, 0, 2), cute.group_modes(g_src, 0, 2)
        )
        _, tBgB = cpasync.tma_partition(
            store_atom, 0, cute.make_layout(1), cute.group_modes(s_tile, 0, 2), cute.group_modes(g_dst, 0, 2)
        )
        if warp_idx == 0:
            cute.copy(load_atom, tAgA[(None, bidx, bidy)], tAsA, tma_bar_ptr=barrier_ptr)
            with cute.arch.elect_one():
                cute.arch.mbarrier_arrive(barrier_ptr)
        cute.arch.mbarrier_wait(barrier_ptr, 0)

        for i in cutlass.range_constexpr(TILE_N):
            s_tile[tidx, i] = s_tile[tidx, i] + cutlass.Float16(1.0)
        cute.arch.fence_proxy("async.shared", space="cta")
        cute.arch.barrier()

        if warp_idx == 0:
            cute.copy(store_atom, tAsA, tBgB[(None, bidx, bidy)])
            cute.arch.cp_async_bulk_commit_group()
            cute.arch.cp_async_bulk_wait_group(0, read=True)


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    TileAddOne()(from_dlpack(x, assumed_align=16), from_dlpack(out, assumed_align=16))
    torch.cuda.synchronize()
    return out
