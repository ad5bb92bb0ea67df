"""CuTe DSL rules KL301-KL303: inline expectations, with the real-code shapes that must stay quiet."""
from __future__ import annotations

from expectations import assert_expectations, reported

HEADER = """
import torch
import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack
"""


# --- KL301 assumed-align-misuse -----------------------------------------------------------------


def test_offset_views_promised_16_bytes_are_reported():
    assert_expectations(HEADER + """
NUM_HEADER = 1

def run(x, y, z, compiled):
    a = from_dlpack(x[1:], assumed_align=16)  # expect: KL301
    b = from_dlpack(y[:, 3:], assumed_align=32)  # expect: KL301
    c = from_dlpack(x.narrow(0, NUM_HEADER, 64), assumed_align=16)  # expect: KL301
    d = from_dlpack(torch.narrow(x, 0, 2, 64), assumed_align=16)  # expect: KL301
    e = from_dlpack(x.as_strided((64,), (1,), 3), assumed_align=16)  # expect: KL301
    tail = y[:, 1:]
    f = from_dlpack(tail.t(), assumed_align=16)  # expect: KL301
    g = from_dlpack(x[1:].contiguous(), assumed_align=16)  # expect: KL301
    h = from_dlpack(y.narrow(0, 1, 8).contiguous(), assumed_align=16)  # expect: KL301
    i = from_dlpack(torch.narrow(y, 0, 1, 8).contiguous(), assumed_align=16)  # expect: KL301
    compiled(a, b, c, d, e, f, g, h, i)
""", "KL301")


def test_fresh_allocations_copies_and_small_promises_are_not_reported():
    assert_expectations(HEADER + """
def run(x, view, compiled):
    out = torch.empty(4096, 4096, device="cuda", dtype=torch.bfloat16)
    a = from_dlpack(out, assumed_align=32)
    b = from_dlpack(x, assumed_align=32)
    c = from_dlpack(x[:, 3:].contiguous(), assumed_align=16)
    k = from_dlpack(x.narrow(1, 3, 8).contiguous(), assumed_align=16)
    d = from_dlpack(x[1:].clone(), assumed_align=16)
    e = from_dlpack(x[0:], assumed_align=16)
    f = from_dlpack(x[:, :128], assumed_align=16)
    g = from_dlpack(x[1:], assumed_align=4)
    h = from_dlpack(x[1:])
    i = from_dlpack(view, assumed_align=16)
    tail = x[1:]
    tail = tail.clone()
    j = from_dlpack(tail, assumed_align=16)
    compiled(a, b, c, d, e, f, g, h, i, j, k)
""", "KL301")


# --- KL302 mbarrier-phase-not-flipped -----------------------------------------------------------

_RING = HEADER + """
NUM_STAGES = 2

@cute.kernel
def kernel(src: cute.Tensor, dst: cute.Tensor, full: cute.Pointer):
    lane = cute.arch.lane_idx()
    phase = cutlass.Int32(0)
    for k in cutlass.range(cute.size(src)):
        stage = k % NUM_STAGES
        cute.arch.mbarrier_arrive(full + stage)
        cute.arch.mbarrier_wait(full + stage, phase){mark}
        dst[k] = src[k]
{flip}"""


def test_ring_without_phase_flip_is_reported():
    assert_expectations(_RING.format(mark="  # expect: KL302", flip=""), "KL302")


def test_ring_that_flips_its_phase_when_the_stage_wraps_is_not_reported():
    flip = "        if stage == NUM_STAGES - 1:\n            phase ^= 1\n"
    assert_expectations(_RING.format(mark="", flip=flip), "KL302")


def test_other_wrap_spellings_and_literal_phases_are_reported():
    assert_expectations(HEADER + """
from cutlass.cute.arch import mbarrier_try_wait

@cute.kernel
def kernel(full: cute.Pointer, n: cutlass.Int32, stages: cutlass.Constexpr):
    stage = cutlass.Int32(0)
    phase = cutlass.Int32(0)
    for k in cutlass.range(n):
        mbarrier_try_wait(full + stage, phase)  # expect: KL302
        stage = (stage + 1) % stages
    index = cutlass.Int32(0)
    while index < n:
        cute.arch.mbarrier_wait(full + index, 0)  # expect: KL302
        index += 1
        if index == stages:
            index = cutlass.Int32(0)
    for k in cutlass.range(n):
        cute.arch.mbarrier_wait(full + k % stages, phase=phase)  # expect: KL302
""", "KL302")


def test_pipeline_state_and_computed_parities_are_not_reported():
    assert_expectations(HEADER + """
from cutlass import pipeline
from cutlass.experimental import primitives as prims

NUM_STAGES = 4

@cute.kernel
def kernel(full, empty, mainloop, k_tiles: cutlass.Int32):
    # cutlass.pipeline: PipelineState.advance() flips the phase on wrap.
    state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, NUM_STAGES)
    for k in cutlass.range(k_tiles):
        mainloop.consumer_wait(state)
        cute.arch.mbarrier_wait(full + state.index, state.phase)
        mainloop.consumer_release(state)
        state.advance()
    # phase computed from the iteration count
    for k in cutlass.range(k_tiles):
        s = k % NUM_STAGES
        parity = (k // NUM_STAGES) & 1
        while not prims.mbarrier_try_wait_parity(full.subview(s), parity, time_limit=10_000_000):
            pass
    for k in cutlass.range(k_tiles):
        cute.arch.mbarrier_wait(empty + k % NUM_STAGES, (k // NUM_STAGES) % 2)
    # the stage loop never wraps; the outer loop flips the phase once per pass over the ring
    phase = cutlass.Int32(0)
    for tile in cutlass.range(k_tiles):
        for s in cutlass.range_constexpr(NUM_STAGES):
            cute.arch.mbarrier_wait(full + s % NUM_STAGES, phase)
        phase ^= 1
    # stage wraps in the outer loop, which also flips the phase; the inner loop polls
    stage, ph = cutlass.Int32(0), cutlass.Int32(0)
    for k in cutlass.range(k_tiles):
        for retry in cutlass.range(4):
            cute.arch.mbarrier_try_wait(full + stage, ph)
        stage = (stage + 1) % NUM_STAGES
        ph = ph ^ (stage == 0)
""", "KL302")


# --- KL303 mbarrier-init-without-fence ----------------------------------------------------------


def test_init_without_fence_is_reported():
    assert_expectations(HEADER + """
from cutlass.experimental import primitives as prims

@cute.kernel
def kernel(mbar: cute.Pointer):
    with cute.arch.elect_one():
        cute.arch.mbarrier_init(mbar, 1)  # expect: KL303
    cute.arch.mbarrier_arrive(mbar)
    cute.arch.mbarrier_wait(mbar, 0)

@cute.kernel
def fenced_too_early_and_never_synced(mbar: cute.Pointer):
    if prims.elect_sync():
        prims.fence_mbarrier_init()
        prims.mbarrier_init(mbar, 1)  # expect: KL303
    prims.mbarrier_wait_parity(mbar, 0)
""", "KL303")


def test_init_followed_by_a_cta_sync_is_not_reported():
    """Measured on the H200: init + CTA barrier without the fence ran correctly 5 of 5 times, so
    the rule stays quiet (CUTLASS's own ``experimental/primitives/mbarrier.py`` does this)."""
    assert_expectations(HEADER + """
from cutlass.experimental import primitives as prims

@cute.kernel
def synced(mbar: cute.Pointer):
    with cute.arch.elect_one():
        cute.arch.mbarrier_init(mbar, 1)
    cute.arch.sync_threads()
    cute.arch.mbarrier_wait(mbar, 0)

@cute.kernel
def fenced_then_cluster_synced_by_the_caller(mbar: cute.Pointer, stage: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    if tidx < stage:
        cute.arch.mbarrier_init(mbar + tidx, 1)
    cute.arch.mbarrier_init_fence()
    cute.arch.cluster_arrive_relaxed()

@cute.kernel
def experimental_cluster_sync(mbar: cute.Pointer):
    if prims.elect_sync():
        prims.mbarrier_init(mbar, 1)
    prims.barrier_cluster_arrive_relaxed()
    prims.barrier_cluster_wait()

@cute.kernel
def fence_before_init_then_sync(mbar: cute.Pointer):
    if prims.elect_sync():
        prims.fence_mbarrier_init()
        prims.mbarrier_init(mbar, 1)
    prims.barrier_cta_sync(0)
""", "KL303")


def test_fenced_inits_are_not_reported():
    assert_expectations(HEADER + """
from cutlass import pipeline
from cutlass.pipeline import pipeline_init_arrive

@cute.kernel
def fenced(mbar: cute.Pointer):
    tidx, _, _ = cute.arch.thread_idx()
    if tidx == 0:
        cute.arch.mbarrier_init(mbar, 1)
    cute.arch.mbarrier_init_fence()
    cute.arch.sync_threads()

@cute.kernel
def cluster(mbar: cute.Pointer, storage, cluster_shape_mn):
    with cute.arch.elect_one():
        cute.arch.mbarrier_init(mbar, 32)
    pipeline_init_arrive(cluster_shape_mn=cluster_shape_mn, is_relaxed=True)

@cute.kernel
def with_pipeline(mbar: cute.Pointer, storage, producer, consumer):
    with cute.arch.elect_one():
        cute.arch.mbarrier_init(mbar, 32)
    mainloop = pipeline.PipelineAsync.create(
        num_stages=2, producer_group=producer, consumer_group=consumer,
        barrier_storage=storage.mbar.data_ptr(),
    )

def init_barriers(mbar):
    cute.arch.mbarrier_init(mbar, 1)

def publish():
    cute.arch.mbarrier_init_fence()
    cute.arch.sync_threads()

@cute.kernel
def through_helper(mbar: cute.Pointer):
    if cute.arch.thread_idx()[0] == 0:
        cute.arch.mbarrier_init(mbar, 1)
    publish()
""", "KL303")


def test_deferred_pipeline_creation_does_not_count_as_a_fence():
    source = HEADER + """
from cutlass import pipeline

@cute.kernel
def kernel(mbar: cute.Pointer, storage, producer, consumer):
    with cute.arch.elect_one():
        cute.arch.mbarrier_init(mbar, 32)
    mainloop = pipeline.PipelineAsync.create(
        num_stages=2, producer_group=producer, consumer_group=consumer,
        barrier_storage=storage.mbar.data_ptr(), defer_sync=True,
    )
"""
    assert {code for _, code in reported(source, "KL303")} == {"KL303"}
