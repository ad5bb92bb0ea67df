"""Row maximum of an (M, N) fp32 matrix whose N (1000) is not a multiple of the 1024-column tile.

One warp per row, four rows per CTA. Each thread copies its columns of the row into a register
fragment with a predicate (column < N), takes the maximum of what it holds, and the warp
combines the 32 partial maxima. The fragment is filled with -inf, the identity of max, before
the predicated copy, so the 24 masked columns of the tile cannot change a row's maximum.
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

ROWS_PER_CTA = 4
THREADS_PER_ROW = 32
VALUES_PER_THREAD = 4
TILE_N = 1024


@cute.kernel
def row_max_kernel(mX: cute.Tensor, mO: cute.Tensor, tiled_copy: cute.TiledCopy, tiler_mn: cute.Shape):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()

    gX = cute.local_tile(mX, tiler_mn, (bidx, 0))
    cX = cute.local_tile(cute.make_identity_tensor(mX.shape), tiler_mn, (bidx, 0))
    thr_copy = tiled_copy.get_slice(tidx)
    tXgX = thr_copy.partition_S(gX)
    tXcX = thr_copy.partition_S(cX)

    # One predicate per element: is its column inside the matrix?
    tXpX = cute.make_rmem_tensor(tXcX.shape, cutlass.Boolean)
    for i in cutlass.range_constexpr(cute.size(tXpX)):
        tXpX[i] = cute.elem_less(tXcX[i], mX.shape)

    tXrX = cute.make_fragment_like(tXgX)
    tXrX.fill(-cutlass.Float32.inf)
    cute.copy(tiled_copy, tXgX, tXrX, pred=tXpX)

    x = tXrX.load()
    local_max = x.reduce(cute.ReductionOp.MAX, -cutlass.Float32.inf, 0)
    row_max = cute.arch.warp_reduction_max(local_max, threads_in_group=THREADS_PER_ROW)
    row = tXcX[0][0]
    if tidx % THREADS_PER_ROW == 0:
        mO[row] = row_max


@cute.jit
def row_max(mX: cute.Tensor, mO: cute.Tensor):
    atom = cute.make_copy_atom(cute.nvgpu.CopyUniversalOp(), mX.element_type)
    thr_layout = cute.make_ordered_layout((ROWS_PER_CTA, THREADS_PER_ROW), order=(1, 0))
    val_layout = cute.make_layout((1, VALUES_PER_THREAD))
    tiled_copy = cute.make_tiled_copy_tv(atom, thr_layout, val_layout)
    tiler_mn = (ROWS_PER_CTA, TILE_N)
    row_max_kernel(mX, mO, tiled_copy, tiler_mn).launch(
        grid=[cute.ceil_div(cute.size(mX, mode=[0]), ROWS_PER_CTA), 1, 1],
        block=[ROWS_PER_CTA * THREADS_PER_ROW, 1, 1],
    )


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    row_max(from_dlpack(x), from_dlpack(out))
    torch.cuda.synchronize()
    return out
