"""CuTe DSL's API as kernelint reads it (``nvidia-cutlass-dsl``): qualified names, argument
positions, decorators. Private module paths are folded onto these names by ``names.canonical``."""
from __future__ import annotations

IMPORT_ROOTS = ("cutlass",)
SOURCE_MARKERS = ("cutlass",)

#: Re-exports and private module paths that mean the same public name.
CANONICAL_PREFIXES = (
    ("cutlass.cute.arch.mbar.", "cutlass.cute.arch."),
    ("cutlass.base_dsl.typing.", "cutlass."),
    ("cutlass.cutlass_dsl.", "cutlass."),
)

ARCH = "cutlass.cute.arch."
PRIMS = "cutlass.experimental.primitives."

KERNEL_DECORATORS = frozenset({"cutlass.cute.kernel", "cutlass.cute.jit"})
CONSTEXPR_ANNOTATIONS = frozenset({"cutlass.Constexpr", "cutlass.cute.Constexpr"})

FROM_DLPACK = "cutlass.cute.runtime.from_dlpack"
COMPILE = "cutlass.cute.compile"
CONST_EXPR = "cutlass.const_expr"
RANGE_CONSTEXPR = "cutlass.range_constexpr"
RANGE = "cutlass.range"

MBARRIER_INIT = frozenset({ARCH + "mbarrier_init", PRIMS + "mbarrier_init"})

#: Phase-parity waits: qualified name -> (position of the barrier, position of the phase).
MBARRIER_WAITS = {
    ARCH + "mbarrier_wait": (0, 1),
    ARCH + "mbarrier_try_wait": (0, 1),
    ARCH + "mbarrier_test_wait": (0, 1),
    ARCH + "mbarrier_conditional_try_wait": (1, 2),
    PRIMS + "mbarrier_wait_parity": (0, 1),
    PRIMS + "mbarrier_try_wait_parity": (0, 1),
}
PHASE_KEYWORDS = ("phase", "parity")

#: Block-wide and cluster-wide barriers: after one, every thread of the CTA (cluster) sees the
#: shared-memory writes made before it, a barrier's initialisation included.
CTA_OR_CLUSTER_SYNCS = frozenset({
    ARCH + "sync_threads", ARCH + "barrier", ARCH + "cluster_wait", ARCH + "cluster_sync",
    PRIMS + "barrier_cta_sync", PRIMS + "barrier", PRIMS + "cluster_wait",
    PRIMS + "barrier_cluster_wait",
})

#: A warp-wide sync: publishes a barrier that one lane initialised for its own warp's use.
WARP_SYNCS = frozenset({ARCH + "sync_warp", PRIMS + "sync_warp"})

#: Helpers that publish a fresh barrier (fence, or the pipeline's fence-and-sync halves);
#: matched on the last name component too, since libraries re-export them.
PUBLISHING_HELPERS = frozenset({"mbarrier_init_fence", "fence_mbarrier_init",
                                "pipeline_init_arrive", "pipeline_init_wait"})

SIGNATURES: dict[str, tuple[str, ...]] = {
    FROM_DLPACK: ("tensor", "assumed_align", "use_32bit_stride"),
}
