"""Scale every element of a (rows, 128) fp32 matrix by 2, through a one-element register tensor
made with `cute.make_rmem_tensor` (CuTe DSL 4.3 and later)."""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

THREADS = 128


@cute.kernel
def scale_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    frag = cute.make_rmem_tensor(cute.make_layout(1), cutlass.Float32)
    frag[0] = src[bidx, tidx] * 2.0
    dst[bidx, tidx] = frag[0]


@cute.jit
def scale(src: cute.Tensor, dst: cute.Tensor):
    scale_kernel(src, dst).launch(grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1))


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    scale(from_dlpack(x), from_dlpack(out))
    torch.cuda.synchronize()
    return out
