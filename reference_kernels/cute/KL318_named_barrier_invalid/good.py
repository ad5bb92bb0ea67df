"""Reverse every 128-element row inside one CTA, exchanging values through shared memory.

Every thread stores its value and then waits on named barrier 1 before reading its mirror
thread's value. The barrier counts the 128 threads that arrive on it.
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

THREADS = 128
VALID_COLUMNS = 100


@cute.kernel
def row_reverse_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    smem = cutlass.utils.SmemAllocator()
    buf = smem.allocate_tensor(cutlass.Float32, cute.make_layout(THREADS), byte_alignment=16)

    buf[tidx] = src[bidx, tidx]
    cute.arch.barrier(barrier_id=1, number_of_threads=THREADS)
    dst[bidx, tidx] = buf[THREADS - 1 - tidx]


@cute.jit
def row_reverse(src: cute.Tensor, dst: cute.Tensor):
    row_reverse_kernel(src, dst).launch(grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1))


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    row_reverse(from_dlpack(x), from_dlpack(out))
    torch.cuda.synchronize()
    return out
