"""CuTe DSL rules KL301-KL303: inline expectations, with the real-code shapes that must stay quiet."""
from __future__ import annotations

from expectations import reported

HEADER = """
import torch
import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack
"""


# --- KL301 assumed-align-misuse -----------------------------------------------------------------


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


# --- KL303 mbarrier-init-without-fence ----------------------------------------------------------


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
