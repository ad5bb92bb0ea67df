"""Double every element of a (rows, cols) fp32 matrix, one CTA per row, streaming the row through
shared memory in 512-element tiles with cp.async.

Two stages: tile k + 1 is in flight while tile k is used (`wait_group(1)`).
Each thread reads only the elements it copied, so no CTA barrier is needed.
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.nvgpu import cpasync
from cutlass.cute.runtime import from_dlpack

THREADS = 128
VEC = 4
TILE = THREADS * VEC


@cute.kernel
def stream_kernel(src: cute.Tensor, dst: cute.Tensor, n_tiles: cutlass.Int32):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    atom = cute.make_copy_atom(
        cpasync.CopyG2SOp(cache_mode=cpasync.LoadCacheMode.GLOBAL), cutlass.Float32, num_bits_per_copy=128
    )
    tiled = cute.make_tiled_copy_tv(atom, cute.make_layout((1, THREADS)), cute.make_layout((1, VEC)))
    thr = tiled.get_slice(tidx)
    smem = cutlass.utils.SmemAllocator()
    s_buf = smem.allocate_tensor(
        cutlass.Float32, cute.make_layout((1, TILE, 2), stride=(TILE, 1, TILE)), byte_alignment=16
    )
    tG = thr.partition_S(cute.local_tile(src, (1, TILE), (bidx, None)))
    tD = thr.partition_S(cute.local_tile(dst, (1, TILE), (bidx, None)))
    tS = thr.partition_D(s_buf)

    cute.copy(tiled, tG[None, None, None, 0], tS[None, None, None, 0])
    cute.arch.cp_async_commit_group()
    for k in cutlass.range(n_tiles):
        if k + 1 < n_tiles:
            cute.copy(tiled, tG[None, None, None, k + 1], tS[None, None, None, (k + 1) % 2])
        cute.arch.cp_async_commit_group()
        cute.arch.cp_async_wait_group(1)
        tD[None, None, None, k].store(tS[None, None, None, k % 2].load() * 2.0)


@cute.jit
def stream(src: cute.Tensor, dst: cute.Tensor):
    stream_kernel(src, dst, cute.size(src, mode=[1]) // TILE).launch(
        grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1)
    )


_compiled = {}


def run(x: torch.Tensor) -> torch.Tensor:
    """Compile once per input (the timing then measures the kernel, not the JIT: see KL311) and
    reuse the output buffer, so repeated timed calls only launch."""
    key = (x.data_ptr(), tuple(x.shape))
    if key not in _compiled:
        out = torch.empty_like(x)
        src, dst = from_dlpack(x, assumed_align=16), from_dlpack(out, assumed_align=16)
        _compiled[key] = (out, src, dst, cute.compile(stream, src, dst))
    out, src, dst, kernel = _compiled[key]
    kernel(src, dst)
    return out
