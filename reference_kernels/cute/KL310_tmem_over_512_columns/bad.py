"""Allocate a Blackwell accumulator in tensor memory, then free it; compiled for sm_100a.

Tensor memory exists only on sm_100-class GPUs, so on the project's H200 (sm_90) this pair is
compiled for sm_100a and not run: `run` compiles the kernel and returns its input unchanged.
The allocation asks for two accumulator stages of a 256-column tile twice over, 1024 columns;
an SM has 512, and CuTe DSL refuses the count while tracing.
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

THREADS = 128
TILE_N = 256
ACC_STAGES = 2
TMEM_COLS = TILE_N * ACC_STAGES * 2


@cute.kernel
def tmem_kernel(dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    smem = cutlass.utils.SmemAllocator()
    holder = smem.allocate_array(cutlass.Int32, num_elems=1)
    if warp_idx == 0:
        cute.arch.alloc_tmem(TMEM_COLS, holder)  # expect: KL310
    cute.arch.sync_threads()
    tmem_ptr = cute.arch.retrieve_tmem_ptr(cutlass.Float32, 16, holder)
    dst[bidx, tidx] = dst[bidx, tidx] + 1.0
    cute.arch.sync_threads()
    if warp_idx == 0:
        cute.arch.relinquish_tmem_alloc_permit()
        cute.arch.dealloc_tmem(tmem_ptr, TMEM_COLS)


@cute.jit
def tmem_roundtrip(dst: cute.Tensor):
    tmem_kernel(dst).launch(grid=(cute.size(dst, mode=[0]), 1, 1), block=(THREADS, 1, 1))


def run(x: torch.Tensor) -> torch.Tensor:
    cute.compile[cute.GPUArch("sm_100a")](tmem_roundtrip, from_dlpack(x))
    return x
