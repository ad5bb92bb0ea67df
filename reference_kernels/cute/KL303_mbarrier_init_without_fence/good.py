"""Reverse every 64-element row inside one CTA, exchanging values through shared memory.

Thread 0 initialises the CTA's mbarrier for 64 arrivals; every thread stores its value, arrives
and waits for the barrier before reading its mirror thread's value. The init is fenced and the
CTA synchronised before anyone arrives.
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

THREADS = 64


@cute.kernel
def row_reverse_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    smem = cutlass.utils.SmemAllocator()
    mbar = smem.allocate_array(cutlass.Int64, num_elems=1)
    buf = smem.allocate_tensor(cutlass.Float32, cute.make_layout(THREADS), byte_alignment=16)

    value = src[bidx, tidx]
    if tidx == 0:
        cute.arch.mbarrier_init(mbar, THREADS)
    cute.arch.mbarrier_init_fence()
    cute.arch.sync_threads()
    buf[tidx] = value
    cute.arch.mbarrier_arrive(mbar)
    cute.arch.mbarrier_wait(mbar, 0)
    dst[bidx, tidx] = buf[THREADS - 1 - tidx]


@cute.jit
def row_reverse(src: cute.Tensor, dst: cute.Tensor):
    row_reverse_kernel(src, dst).launch(grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1))


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    row_reverse(from_dlpack(x), from_dlpack(out))
    torch.cuda.synchronize()
    return out
