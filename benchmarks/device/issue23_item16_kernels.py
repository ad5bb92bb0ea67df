"""CuTe DSL kernels for two of issue 23 item 16's run-time claims (the seed's CuTe DSL list), each
in the variants the probe compares. Read by ``issue23_item16_probe.py``; nothing runs at import.

1. Cluster mbarriers used before their init is visible to the cluster. A cluster of two CTAs: each
   CTA's thread 0 initialises its own mbarrier for one arrival, then arrives on the *peer* CTA's
   barrier (``mbarrier_arrive(bar, peer_cta_rank_in_cluster=...)``, a remote arrive through
   ``mapa``) and waits for its own barrier's phase 0. What publishes the init before the peer's
   remote arrive is the variant:

   - ``cluster``: ``mbarrier_init_fence()`` + ``cluster_arrive_relaxed()`` + ``cluster_wait()``
     (what CUTLASS's cluster pipelines do);
   - ``cta``: ``mbarrier_init_fence()`` + ``sync_threads()``: published to the CTA only, the peer
     CTA may arrive before the init;
   - ``none``: nothing after the init;
   - ``cta_delayed``: as ``cta``, but CTA rank 1 spins ``delay`` clock cycles before its init,
     which makes the race's bad order (the peer's arrive first) happen on purpose.

   An arrive that lands before the init is overwritten by it: the barrier then waits for an
   arrival that never comes (a hang), or the arrive hits uninitialised shared memory.
   Every CTA writes its rank + 1 to ``out[block]`` once its wait returns.

2. Fully masked ``-inf`` rows in an online softmax. One thread per row of ``s`` (fp32,
   ``rows x cols``); column ``j`` of row ``r`` is kept when ``start[r] <= j < stop[r]``, else it
   is ``-inf``. The row's softmax-weighted mean of ``v`` is computed block by block (32 columns)
   with the running max and sum of flash attention, ``exp2`` on ``ex2.approx.ftz``:

   - ``unguarded``: the running max is used as is;
   - ``guarded``: flash-attention's ``softmax.py`` guards: the max taken as 0 while it is
     ``-inf``, and the final ``1 / sum`` replaced by 1 when the sum is 0 or NaN.

   A row with no kept column (``start >= stop``), or whose first blocks are all masked, computes
   ``exp2(-inf - (-inf))`` unguarded.
"""
import math

import cutlass
import cutlass.cute as cute
from cutlass import Float32, Int32

CLUSTER = 2
CLUSTER_THREADS = 32
PUBLISH = ("cluster", "cta", "none", "cta_delayed")

ROW_THREADS = 128
BLOCK = 32
LOG2_E = math.log2(math.e)
SOFTMAX = ("unguarded", "guarded")


@cute.kernel
def cluster_exchange_kernel(out: cute.Tensor, delay: Int32, publish: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    rank = cute.arch.block_idx_in_cluster()
    smem = cutlass.utils.SmemAllocator()
    mbar = smem.allocate_array(cutlass.Int64, num_elems=1)
    if tidx == 0:
        if cutlass.const_expr(publish == "cta_delayed"):
            if rank == 1:
                began = cute.arch.clock64()
                while cute.arch.clock64() - began < cutlass.Int64(delay):
                    pass
        cute.arch.mbarrier_init(mbar, 1)
    if cutlass.const_expr(publish == "cluster"):
        cute.arch.mbarrier_init_fence()
        cute.arch.cluster_arrive_relaxed()
        cute.arch.cluster_wait()
    elif cutlass.const_expr(publish in ("cta", "cta_delayed")):
        cute.arch.mbarrier_init_fence()
        cute.arch.sync_threads()
    if tidx == 0:
        cute.arch.mbarrier_arrive(mbar, peer_cta_rank_in_cluster=1 - rank)
    cute.arch.mbarrier_wait(mbar, 0)
    if tidx == 0:
        out[bidx] = rank + 1
    # Neither CTA leaves while its peer may still touch its shared memory.
    cute.arch.cluster_arrive()
    cute.arch.cluster_wait()


@cute.jit
def cluster_exchange(out: cute.Tensor, delay: Int32, publish: cutlass.Constexpr):
    cluster_exchange_kernel(out, delay, publish).launch(
        grid=(cute.size(out), 1, 1), block=(CLUSTER_THREADS, 1, 1), cluster=(CLUSTER, 1, 1))


@cute.kernel
def row_softmax_kernel(s: cute.Tensor, v: cute.Tensor, start: cute.Tensor, stop: cute.Tensor,
                       out: cute.Tensor, guard: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    row = bidx * ROW_THREADS + tidx
    rows = cute.size(s, mode=[0])
    cols = cute.size(s, mode=[1])
    if row < rows:
        lo = start[row]
        hi = stop[row]
        row_max = -Float32.inf
        row_sum = Float32(0.0)
        acc = Float32(0.0)
        for block in cutlass.range(cols // BLOCK):
            base = block * BLOCK
            block_max = row_max
            for j in cutlass.range_constexpr(BLOCK):
                x = s[row, base + j]
                if base + j < lo or base + j >= hi:
                    x = -Float32.inf
                block_max = cute.arch.fmax(block_max, x)
            used_max = block_max
            if cutlass.const_expr(guard == "guarded"):
                used_max = 0.0 if block_max == -Float32.inf else block_max
            scale = cute.math.exp2((row_max - used_max) * LOG2_E, fastmath=True)
            row_sum = row_sum * scale
            acc = acc * scale
            for j in cutlass.range_constexpr(BLOCK):
                x = s[row, base + j]
                if base + j < lo or base + j >= hi:
                    x = -Float32.inf
                p = cute.math.exp2((x - used_max) * LOG2_E, fastmath=True)
                row_sum = row_sum + p
                acc = acc + p * v[base + j]
            row_max = block_max
        if cutlass.const_expr(guard == "guarded"):
            empty = row_sum == 0.0 or row_sum != row_sum
            out[row] = acc * cute.arch.rcp_approx(row_sum if not empty else 1.0)
        else:
            out[row] = acc * cute.arch.rcp_approx(row_sum)


@cute.jit
def row_softmax(s: cute.Tensor, v: cute.Tensor, start: cute.Tensor, stop: cute.Tensor, out: cute.Tensor,
                guard: cutlass.Constexpr):
    rows = cute.size(s, mode=[0])
    row_softmax_kernel(s, v, start, stop, out, guard).launch(
        grid=((rows + ROW_THREADS - 1) // ROW_THREADS, 1, 1), block=(ROW_THREADS, 1, 1))
