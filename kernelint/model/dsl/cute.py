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

JIT_DECORATOR = "cutlass.cute.jit"
KERNEL = "cutlass.cute.kernel"
KERNEL_DECORATORS = frozenset({KERNEL, JIT_DECORATOR})
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

#: The async proxy completes a barrier: calls that set a transaction count on it (their last name
#: contains ``expect_tx``: ``mbarrier_arrive_and_expect_tx``, ``mbarrier_expect_tx``, the
#: experimental ``mbarrier_arrive_expect_tx``...), bulk copies that name it (``cp_async_bulk*``),
#: and ``cute.copy(tma_atom, ..., tma_bar_ptr=bar)``.
TRANSACTION_COUNT_MARK = "expect_tx"
BULK_COPY_PREFIX = "cp_async_bulk"
TMA_BARRIER_KEYWORD = "tma_bar_ptr"

#: Per-thread register reconfiguration (PTX ``setmaxnreg``): the count must be a multiple of 8
#: in [24, 256]. The ``warpgroup_reg_*`` spellings are the deprecated aliases.
SETMAXREGISTER = frozenset({
    ARCH + "setmaxregister_increase", ARCH + "setmaxregister_decrease",
    ARCH + "warpgroup_reg_alloc", ARCH + "warpgroup_reg_dealloc",
})
SETMAXREGISTER_MULTIPLE = 8
SETMAXREGISTER_RANGE = (24, 256)

#: Tensor memory (sm_100): 512 columns per SM; an allocation is a power of two of at least 32.
ALLOC_TMEM = ARCH + "alloc_tmem"
DEALLOC_TMEM = ARCH + "dealloc_tmem"
TMEM_ALLOCATOR = frozenset({"cutlass.utils.TmemAllocator", "cutlass.utils.tmem_allocator.TmemAllocator",
                            "cutlass.memory.tmem.TmemAllocator"})
#: Allocating and freeing tensor memory: the experimental primitives' spellings, and the
#: ``TmemAllocator`` methods that allocate (``reserve`` allocates a block for a buffer pool) and
#: free. Memory a CTA allocates must be freed before it exits, or later CTAs on the SM wait for
#: columns forever; relinquishing the allocation permit frees nothing.
TMEM_ALLOCATE = frozenset({ALLOC_TMEM, PRIMS + "tcgen05_alloc"})
TMEM_DEALLOCATE = frozenset({DEALLOC_TMEM, PRIMS + "tcgen05_dealloc"})
TMEM_ALLOCATOR_ALLOCATES = frozenset({"allocate", "reserve"})
TMEM_ALLOCATOR_FREES = frozenset({"free"})
TMEM_MAX_COLUMNS = 512
TMEM_MIN_COLUMNS = 32

#: Named (CTA) barriers: 16 ids, id 0 is the one ``sync_threads`` uses; thread counts are counted
#: in whole warps. Qualified name -> (id parameter, thread-count parameter).
NAMED_BARRIERS = {
    ARCH + "barrier": ("barrier_id", "number_of_threads"),
    ARCH + "barrier_arrive": ("barrier_id", "number_of_threads"),
    "cutlass.pipeline.NamedBarrier": ("barrier_id", "num_threads"),
    "cutlass.pipeline.helpers.NamedBarrier": ("barrier_id", "num_threads"),
}
NAMED_BARRIER_COUNT = 16
WARP_SIZE = 32

#: Element types too narrow to accumulate a long sum in (8 or fewer mantissa bits for bf16, 11
#: for fp16), and the calls that make a scalar or a register fragment of a given element type.
LOW_PRECISION_FLOATS = frozenset({"cutlass.BFloat16", "cutlass.Float16"})
REGISTER_FRAGMENTS = frozenset({
    "cutlass.cute.make_rmem_tensor", "cutlass.cute.make_fragment", "cutlass.cute.make_fragment_like",
    "cutlass.cute.make_rmem_tensor_like",
})

#: TMA: the tiled-atom factory, the copy operations that store shared memory to global memory,
#: and the calls that wait until bulk stores have read their shared-memory source (by last name:
#: the pipeline classes of CUTLASS and of libraries such as quack wrap the wait).
COPY = "cutlass.cute.copy"
MAKE_TMA_ATOM = frozenset({"cutlass.cute.nvgpu.cpasync.make_tiled_tma_atom", "cutlass.cute.nvgpu.make_tiled_tma_atom"})
TMA_STORE_OPS = frozenset({"CopyBulkTensorTileS2GOp", "CopyReduceBulkTensorTileS2GOp"})
BULK_STORE_DRAINS = frozenset({"cp_async_bulk_wait_group", "producer_tail", "tma_store_wait"})

#: ``cutlass.pipeline``: TMA load pipelines (their producer is the one thread that arms the
#: barrier with the transaction count), the group and state factories, and the methods that
#: take a state on each side.
PIPELINE = "cutlass.pipeline."
TMA_LOAD_PIPELINES = frozenset({
    PIPELINE + "PipelineTmaAsync", PIPELINE + "PipelineTmaUmma", PIPELINE + "PipelineTmaMultiConsumersAsync",
})
COOPERATIVE_GROUP = PIPELINE + "CooperativeGroup"
AGENT_THREAD = PIPELINE + "Agent.Thread"
MAKE_PIPELINE_STATE = PIPELINE + "make_pipeline_state"
PIPELINE_USER_TYPES = {PIPELINE + "PipelineUserType.Producer": "producer",
                       PIPELINE + "PipelineUserType.Consumer": "consumer"}
PRODUCER_METHODS = frozenset({"producer_acquire", "producer_try_acquire", "producer_commit"})
CONSUMER_METHODS = frozenset({"consumer_wait", "consumer_try_wait", "consumer_release"})
PIPELINE_INIT_HELPERS = frozenset({PIPELINE + "pipeline_init_arrive", PIPELINE + "pipeline_init_wait"})

#: Non-bulk cp.async groups (sm_80+): commit the copies issued so far, wait until at most N groups
#: are pending. (The bulk forms, ``cp_async_bulk_*``, belong to TMA.)
CP_ASYNC_COMMIT = frozenset({ARCH + "cp_async_commit_group", PRIMS + "cp_async_commit_group"})
CP_ASYNC_WAIT = frozenset({ARCH + "cp_async_wait_group", PRIMS + "cp_async_wait_group"})

#: SM90 warpgroup MMA (wgmma) groups: close the group of ``cute.gemm`` calls issued so far, wait
#: until at most N groups are pending (model/cute/wgmma.py).
WGMMA_COMMIT = frozenset({"cutlass.cute.nvgpu.warpgroup.commit_group"})
WGMMA_WAIT = frozenset({"cutlass.cute.nvgpu.warpgroup.wait_group"})

#: Integer constructors that keep their argument's value (``cutlass.Int32(256)``).
INT_WRAPPERS = frozenset({
    "int", "cutlass.Int32", "cutlass.Int64", "cutlass.Uint32", "cutlass.Uint64", "cutlass.Int16",
})
#: Loop iterables the CuTe DSL preprocessor turns into a traced (scf.for) loop whose variable is a
#: run-time value. Builtin ``range`` is one of them; ``range_constexpr`` is unrolled in Python.
DYNAMIC_RANGE_NAMES = frozenset({"range", "range_dynamic"})
STATIC_RANGE_NAMES = frozenset({"range_constexpr"})
#: Tensor and pointer attributes that are Python values while a kernel is traced.
COMPILE_TIME_ATTRIBUTES = frozenset({"element_type", "memspace"})

SIGNATURES: dict[str, tuple[str, ...]] = {
    FROM_DLPACK: ("tensor", "assumed_align", "use_32bit_stride"),
    **{name: ("reg_count",) for name in SETMAXREGISTER},
    ALLOC_TMEM: ("num_columns", "smem_ptr_to_write_address", "is_two_cta"),
    DEALLOC_TMEM: ("tmem_ptr", "num_columns", "is_two_cta"),
    "cutlass.pipeline.NamedBarrier": ("barrier_id", "num_threads"),
    "cutlass.pipeline.helpers.NamedBarrier": ("barrier_id", "num_threads"),
}

#: Transaction counts on an mbarrier: qualified name -> (position of the barrier, position of the
#: byte count). ``peer_cta_rank_in_cluster`` (position 2) arms another CTA's barrier.
EXPECT_TX = {
    ARCH + "mbarrier_arrive_and_expect_tx": (0, 1),
    ARCH + "mbarrier_expect_tx": (0, 1),
}
EXPECT_TX_KEYWORDS = ("bytes", "mbar_ptr", "peer_cta_rank_in_cluster")
SIZE_IN_BYTES = "cutlass.cute.size_in_bytes"
SIZE = "cutlass.cute.size"
LAYOUT_MAKERS = frozenset({"cutlass.cute.make_layout", "cutlass.cute.make_ordered_layout"})
SLICE = "cutlass.cute.slice_"
GROUP_MODES = "cutlass.cute.group_modes"
TMA_PARTITION = frozenset({"cutlass.cute.nvgpu.cpasync.tma_partition"})
#: The plain TMA load op (one CTA's tile into its own shared memory). Its ``cta_group`` makes the
#: leader CTA's barrier count the peer CTA's bytes too.
TMA_LOAD_OP = "CopyBulkTensorTileG2SOp"
CTA_GROUP_SIZES = {"CtaGroup.ONE": 1, "CtaGroup.TWO": 2}
#: Width in bits of the element types whose width is fixed (the ones real kernels name).
DTYPE_BITS = {
    "cutlass.Float64": 64, "cutlass.Float32": 32, "cutlass.TFloat32": 32, "cutlass.Float16": 16,
    "cutlass.BFloat16": 16, "cutlass.Float8E4M3FN": 8, "cutlass.Float8E5M2": 8, "cutlass.Float8E8M0FNU": 8,
    "cutlass.Int64": 64, "cutlass.Int32": 32, "cutlass.Int16": 16, "cutlass.Int8": 8, "cutlass.Uint64": 64,
    "cutlass.Uint32": 32, "cutlass.Uint16": 16, "cutlass.Uint8": 8, "cutlass.Float4E2M1FN": 4,
}

#: Non-bulk cp.async copies: the op that makes a copy atom an asynchronous global -> shared copy.
CP_ASYNC_G2S_OP = "CopyG2SOp"
#: Calls after which shared memory that one thread wrote is safe for the others to read, or is
#: handed to them through a barrier they wait on (matched on the last name: pipeline classes and
#: ``NamedBarrier`` objects of CUTLASS and of libraries wrap them).
SMEM_HANDOFFS = frozenset({
    "sync_threads", "barrier", "barrier_arrive", "sync_warp", "cluster_sync", "cluster_wait", "arrive_and_wait",
    "sync", "producer_commit", "consumer_release", "mbarrier_arrive", "arrive", "cp_async_mbarrier_arrive",
    "cp_async_mbarrier_arrive_noinc", "barrier_cta_sync",
})

# --- versions -----------------------------------------------------------------------------------
from kernelint.model.dsl.versioning import ADDED, CHANGED, DEPRECATED, REMOVED, ApiChange  # noqa: E402

#: Distribution names a project may pin CuTe DSL under.
DISTRIBUTIONS = ("nvidia-cutlass-dsl",)
#: Releases kernelint knows, oldest first (CUTLASS CHANGELOG.md and PyPI, 2026-12).
RELEASES = ("4.0.0", "4.1.0", "4.2.0", "4.2.1", "4.3.0", "4.3.1", "4.3.2", "4.3.3", "4.3.4", "4.3.5", "4.4.0",
            "4.4.1", "4.4.2", "4.5.0", "4.5.1", "4.5.2", "4.5.3", "4.6.0", "4.6.1", "4.6.2", "4.6.3", "4.7.0",
            "4.7.1", "4.8.0", "4.8.1")

MAKE_FRAGMENT = "cutlass.cute.make_fragment"
MAKE_RMEM_TENSOR = "cutlass.cute.make_rmem_tensor"
MAKE_RMEM_TENSOR_LIKE = "cutlass.cute.make_rmem_tensor_like"
RANGE_DYNAMIC = "cutlass.range_dynamic"
DYNAMIC_EXPR = "cutlass.dynamic_expr"
#: Behaviour: a plain ``if`` / ``while`` in a jit function is a run-time branch whatever its test.
IF_TRACED_AT_RUN_TIME = "plain if/while in @cute.jit code is traced as a run-time branch"

_API_LOG = "CUTLASS media/docs/pythonDSL/cute_dsl_api/changelog.rst"
_CHANGELOG = "CUTLASS CHANGELOG.md"
_WHEELS = ("nvidia-cutlass-dsl wheel sources compared release by release (4.2.1, 4.3.0, 4.4.0, 4.5.0, 4.6.0, "
           "4.7.0, 4.8.1)")

#: When CuTe DSL APIs and behaviours appeared, were deprecated, removed or changed.
API_CHANGES: tuple[ApiChange, ...] = (
    ApiChange(MAKE_RMEM_TENSOR, ADDED, "4.3.0", _API_LOG + " 4.3.0 ('make_rmem_tensor ... replace make_fragment'); "
              + _WHEELS),
    ApiChange(MAKE_RMEM_TENSOR_LIKE, ADDED, "4.3.0", _API_LOG + " 4.3.0; " + _WHEELS),
    ApiChange(MAKE_FRAGMENT, DEPRECATED, "4.3.0", _WHEELS + " (cute/tensor.py: @deprecated('`make_fragment` is "
              "deprecated, use `make_rmem_tensor` instead') from 4.3.0)", replacement=MAKE_RMEM_TENSOR, mechanical=True),
    ApiChange(MAKE_FRAGMENT, REMOVED, "4.6.0", _CHANGELOG + " 4.6.0 ('Long-deprecated API clean-up ... cute.make_fragment, "
              "please use cute.make_rmem_tensor instead'); CUTLASS PR #3285", replacement=MAKE_RMEM_TENSOR,
              mechanical=True),
    ApiChange("cutlass.cute.core.ThrMma", DEPRECATED, "4.3.0", _WHEELS + " (cute/core.py keeps `core.ThrMma` as "
              "'Deprecated usage' from 4.3.0)", replacement="cutlass.cute.ThrMma", mechanical=True),
    ApiChange("cutlass.cute.core.ThrMma", REMOVED, "4.6.0", _CHANGELOG + " 4.6.0 ('cute.core.ThrMma, please use "
              "cute.ThrMma instead')", replacement="cutlass.cute.ThrMma", mechanical=True),
    ApiChange("cutlass.cute.core.ThrCopy", DEPRECATED, "4.3.0", _WHEELS + " (the same comment)",
              replacement="cutlass.cute.ThrCopy", mechanical=True),
    ApiChange("cutlass.cute.core.ThrCopy", REMOVED, "4.6.0", _CHANGELOG + " 4.6.0 ('cute.core.ThrCopy, please use "
              "cute.ThrCopy instead')", replacement="cutlass.cute.ThrCopy", mechanical=True),
    ApiChange(RANGE_DYNAMIC, DEPRECATED, "4.1.0", _API_LOG + " 4.1.0 ('Deprecated cutlass.range_dynamic, please "
              "replace with range or cutlass.range'); still defined in 4.8.1", replacement="range or cutlass.range"),
    ApiChange(DYNAMIC_EXPR, DEPRECATED, "4.1.0", _API_LOG + " 4.1.0 ('Deprecated cutlass.dynamic_expr, please "
              "remove it'); still defined in 4.8.1", replacement="the bare expression"),
    *(ApiChange(f"cutlass.utils.{helpers}.SMEM_CAPACITY", DEPRECATED, "4.1.0", _API_LOG + " 4.1.0 "
                "('<arch>_utils.SMEM_CAPACITY[\"<arch_str>\"] is now deprecated')",
                replacement="cutlass.utils.get_smem_capacity_in_bytes")
      for helpers in ("ampere_helpers", "hopper_helpers", "blackwell_helpers")),
    *(ApiChange(f"cutlass.utils.{helpers}.SMEM_CAPACITY", REMOVED, "4.3.0", _API_LOG + " 4.3.0 ('Removed "
                "deprecated cutlass.<arch>_utils.SMEM_CAPACITY'); " + _WHEELS,
                replacement="cutlass.utils.get_smem_capacity_in_bytes")
      for helpers in ("ampere_helpers", "hopper_helpers", "blackwell_helpers")),
    ApiChange("cutlass.utils.ampere_helpers", REMOVED, "4.3.0", _API_LOG + " 4.3.0 ('Removed ... "
              "cutlass.utils.ampere_helpers'); " + _WHEELS),
    ApiChange(IF_TRACED_AT_RUN_TIME, CHANGED, "4.1.0", _API_LOG + " 4.1.0 ('while/if now by default generates "
              "codes and executes at runtime unless cutlass.const_expr is specified for the predicate')"),
)
