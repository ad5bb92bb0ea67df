"""Scale a (rows, 128) fp32 matrix by the product of a list of factors, one row per CTA.

The list of factors gets a second entry when the `sharpen` Constexpr is set. The `if` that adds
it has a plain test, so CuTe DSL (4.1 and later) traces it as a run-time branch, and the list
has one item on one path and two on the other.
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

THREADS = 128


@cute.kernel
def scale_kernel(src: cute.Tensor, dst: cute.Tensor, sharpen: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    factors = [2.0]
    if sharpen:
        factors.append(1.5)  # expect: KL320
    value = src[bidx, tidx]
    for factor in factors:
        value = value * factor
    dst[bidx, tidx] = value


@cute.jit
def scale(src: cute.Tensor, dst: cute.Tensor, sharpen: cutlass.Constexpr):
    scale_kernel(src, dst, sharpen).launch(grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1))


def run(x: torch.Tensor, sharpen: bool) -> torch.Tensor:
    out = torch.empty_like(x)
    scale(from_dlpack(x), from_dlpack(out), sharpen)
    torch.cuda.synchronize()
    return out
