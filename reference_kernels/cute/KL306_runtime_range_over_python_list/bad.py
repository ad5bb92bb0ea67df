"""Mix three columns of a (rows, 384) fp32 matrix into one, with fixed weights.

Thread t of a CTA (one row per CTA) sums the elements at columns t, t + 128 and t + 256, each
times a weight from a Python list. The loop over the three terms is a `cutlass.range` loop, so
its variable is a run-time integer, which cannot index the list.
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

THREADS = 128
WEIGHTS = [0.5, 0.25, 0.125]


@cute.kernel
def mix_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    acc = cutlass.Float32(0.0)
    for k in cutlass.range(3):
        acc += src[bidx, tidx + k * THREADS] * WEIGHTS[k]  # expect: KL306
    dst[bidx, tidx] = acc


@cute.jit
def mix(src: cute.Tensor, dst: cute.Tensor):
    mix_kernel(src, dst).launch(grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1))


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty(x.shape[0], THREADS, dtype=x.dtype, device=x.device)
    mix(from_dlpack(x), from_dlpack(out))
    torch.cuda.synchronize()
    return out
