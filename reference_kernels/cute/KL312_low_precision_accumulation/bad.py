"""Sum every row of a (rows, 4096) bf16 matrix, one thread per row.

The running sum is a bf16 scalar, so every one of the 4096 additions rounds it to 8
significant bits.
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

THREADS = 128
COLS = 4096


@cute.kernel
def row_sum_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    row = bidx * THREADS + tidx
    acc = cutlass.BFloat16(0.0)
    for j in cutlass.range(COLS):
        acc += src[row, j]  # expect: KL312
    dst[row] = acc.to(cutlass.Float32)


@cute.jit
def row_sum(src: cute.Tensor, dst: cute.Tensor):
    row_sum_kernel(src, dst).launch(grid=(cute.size(src, mode=[0]) // THREADS, 1, 1), block=(THREADS, 1, 1))


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    row_sum(from_dlpack(x), from_dlpack(out))
    torch.cuda.synchronize()
    return out
