"""A per-thread recurrence over a register fragment: each thread of a CTA (one row per CTA) loads
16 fp32 values into registers and runs `acc = acc * 0.5 + frag[i]` over them `reps` times.

The inner loop runs over `n` (a run-time `Int32`, 16 here), so `frag[i]` is indexed by a value
known only when the kernel runs: the fragment is kept in local memory (the PTX reads it with
`ld.local`).
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass import Float32, Int32
from cutlass.cute.runtime import from_dlpack

THREADS = 128
FRAG = 16


@cute.kernel
def recurrence_kernel(src: cute.Tensor, dst: cute.Tensor, n: Int32, reps: Int32):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    frag = cute.make_rmem_tensor(cute.make_layout(FRAG), Float32)
    for i in cutlass.range_constexpr(FRAG):
        frag[i] = src[bidx, tidx * FRAG + i]
    acc = Float32(0.0)
    for _ in cutlass.range(reps):
        for i in cutlass.range(n):
            acc = acc * 0.5 + frag[i]  # expect: KL321
    dst[bidx, tidx] = acc


@cute.jit
def recurrence(src: cute.Tensor, dst: cute.Tensor, n: Int32, reps: Int32):
    recurrence_kernel(src, dst, n, reps).launch(grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1))


_compiled = {}


def run(x: torch.Tensor, reps: int) -> torch.Tensor:
    key = (x.data_ptr(), tuple(x.shape))
    if key not in _compiled:
        out = torch.empty(x.shape[0], THREADS, dtype=x.dtype, device=x.device)
        src, dst = from_dlpack(x), from_dlpack(out)
        _compiled[key] = (out, src, dst, cute.compile(recurrence, src, dst, Int32(FRAG), Int32(reps)))
    out, src, dst, kernel = _compiled[key]
    kernel(src, dst, Int32(FRAG), Int32(reps))
    return out
