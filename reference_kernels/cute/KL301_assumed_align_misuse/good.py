"""Double every element after the first: the tail view is copied before it is promised aligned."""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

THREADS = 128


@cute.kernel
def scale_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    i = bidx * THREADS + tidx
    if i < cute.size(src):
        dst[i] = src[i] * 2.0


@cute.jit
def scale(src: cute.Tensor, dst: cute.Tensor):
    scale_kernel(src, dst).launch(grid=(cute.ceil_div(cute.size(src), THREADS), 1, 1), block=(THREADS, 1, 1))


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.numel() - 1, dtype=x.dtype, device=x.device)
    scale(from_dlpack(x[1:].clone(), assumed_align=16), from_dlpack(out, assumed_align=16))
    torch.cuda.synchronize()
    return out
