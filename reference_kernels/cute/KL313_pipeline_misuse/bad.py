"""Add one to a (M, N) fp16 matrix, one 128x128 tile per CTA, through a one-stage TMA pipeline.

Warp 0 loads the tile with TMA through `cutlass.pipeline.PipelineTmaAsync`; the four warps of
the CTA wait for it, add one and store the result. The pipeline's producer group is the whole
producer warp (32 threads), so its full barrier waits for 32 arrivals; the TMA producer arms
it once per stage.
"""
import torch

import cutlass
import cutlass.cute as cute
import cutlass.utils as utils
from cutlass import pipeline
from cutlass.cute.nvgpu import cpasync
from cutlass.cute.runtime import from_dlpack

TILE_M = 128
TILE_N = 128
THREADS = 128
PRODUCER_THREADS = 32


class TileAddOne:
    @cute.jit
    def __call__(self, src: cute.Tensor, dst: cute.Tensor):
        self.dtype = src.element_type
        smem_layout = cute.make_layout((TILE_M, TILE_N), stride=(TILE_N, 1))

        @cute.struct
        class SharedStorage:
            pipeline_storage: cute.struct.MemRange[cutlass.Int64, 2]
            smem_data: cute.struct.Align[cute.struct.MemRange[self.dtype, cute.cosize(smem_layout)], 1024]

        self.shared_storage = SharedStorage
        self.num_tma_load_bytes = cute.size_in_bytes(self.dtype, smem_layout)
        cta_tiler = cute.product_each(smem_layout.shape)
        load_atom, load_tensor = cpasync.make_tiled_tma_atom(
            cpasync.CopyBulkTensorTileG2SOp(), src, smem_layout, cta_tiler
        )
        grid = cute.ceil_div((*src.layout.shape, 1), (TILE_M, TILE_N))
        self.kernel(load_atom, load_tensor, dst, smem_layout).launch(
            grid=grid, block=(THREADS, 1, 1), cluster=(1, 1, 1)
        )

    @cute.kernel
    def kernel(self, load_atom: cute.CopyAtom, load_tensor: cute.Tensor, dst: cute.Tensor,
               smem_layout: cute.Layout):
        bidx, bidy, _ = cute.arch.block_idx()
        tidx, _, _ = cute.arch.thread_idx()
        warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())
        smem = utils.SmemAllocator()
        storage = smem.allocate(self.shared_storage)

        mainloop = pipeline.PipelineTmaAsync.create(  # expect: KL313
            barrier_storage=storage.pipeline_storage.data_ptr(),
            num_stages=1,
            producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, PRODUCER_THREADS),
            consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, THREADS // 32),
            tx_count=self.num_tma_load_bytes,
            cta_layout_vmnk=cute.make_layout((1, 1, 1, 1)),
        )

        g_src = cute.local_tile(load_tensor, (TILE_M, TILE_N), (None, None))
        s_tile = storage.smem_data.get_tensor(smem_layout)
        tAsA, tAgA = cpasync.tma_partition(
            load_atom, 0, cute.make_layout(1), cute.group_modes(s_tile, 0, 2), cute.group_modes(g_src, 0, 2)
        )
        if warp_idx == 0:
            producer_state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, 1)
            mainloop.producer_acquire(producer_state)
            cute.copy(load_atom, tAgA[(None, bidx, bidy)], tAsA,
                      tma_bar_ptr=mainloop.producer_get_barrier(producer_state))
            mainloop.producer_commit(producer_state)

        consumer_state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, 1)
        mainloop.consumer_wait(consumer_state)
        for i in cutlass.range_constexpr(TILE_N):
            dst[bidx * TILE_M + tidx, bidy * TILE_N + i] = s_tile[tidx, i] + cutlass.Float16(1.0)
        mainloop.consumer_release(consumer_state)


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    TileAddOne()(from_dlpack(x, assumed_align=16), from_dlpack(out, assumed_align=16))
    torch.cuda.synchronize()
    return out
