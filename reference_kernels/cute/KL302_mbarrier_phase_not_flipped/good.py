"""Reverse the 32 lanes of every column, exchanging values through a 2-stage shared-memory ring.

Each of the 32 threads writes its value into the current stage, arrives on that stage's
mbarrier and waits for all 32 arrivals before reading its mirror lane's value. With two stages
a thread can start the next column while slower lanes still read the previous one. The ring
wraps after NUM_STAGES columns, so the mbarrier phase to wait for flips on every wrap.
"""
import torch

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

NUM_STAGES = 2
LANES = 32


@cute.kernel
def lane_reverse_kernel(src: cute.Tensor, dst: cute.Tensor):
    lane = cute.arch.lane_idx()
    smem = cutlass.utils.SmemAllocator()
    full = smem.allocate_array(cutlass.Int64, num_elems=NUM_STAGES)
    buf = smem.allocate_tensor(cutlass.Float32, cute.make_layout((LANES, NUM_STAGES)), byte_alignment=16)
    with cute.arch.elect_one():
        for s in cutlass.range_constexpr(NUM_STAGES):
            cute.arch.mbarrier_init(full + s, LANES)
    cute.arch.mbarrier_init_fence()
    cute.arch.sync_threads()

    phase = cutlass.Int32(0)
    for k in cutlass.range(cute.size(src, mode=[1])):
        stage = k % NUM_STAGES
        buf[lane, stage] = src[lane, k]
        cute.arch.mbarrier_arrive(full + stage)
        cute.arch.mbarrier_wait(full + stage, phase)
        dst[lane, k] = buf[LANES - 1 - lane, stage]
        if stage == NUM_STAGES - 1:
            phase ^= 1


@cute.jit
def lane_reverse(src: cute.Tensor, dst: cute.Tensor):
    lane_reverse_kernel(src, dst).launch(grid=(1, 1, 1), block=(LANES, 1, 1))


def run(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    lane_reverse(from_dlpack(x), from_dlpack(out))
    torch.cuda.synchronize()
    return out
