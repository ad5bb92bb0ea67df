"""Triton's API as kernelint reads it: qualified names, signatures, dtypes, decorators."""
from __future__ import annotations

IMPORT_ROOTS = ("triton",)
SOURCE_MARKERS = ("triton",)

TL = "triton.language."

#: Re-exports and private module paths that mean the same public name.
CANONICAL_PREFIXES = (
    ("triton.language.core.", "triton.language."),
    ("triton.language.standard.", "triton.language."),
    ("triton.language.extra.cuda.libdevice.", "triton.language.extra.libdevice."),
    ("triton.language.extra.cuda.", "triton.language.extra.libdevice."),
    ("triton.runtime.jit.jit", "triton.jit"),
    ("triton.runtime.autotuner.autotune", "triton.autotune"),
    ("triton.runtime.autotuner.heuristics", "triton.heuristics"),
    ("triton.runtime.autotuner.Config", "triton.Config"),
    ("triton.runtime.Config", "triton.Config"),
)

JIT = "triton.jit"
AUTOTUNE = "triton.autotune"
HEURISTICS = "triton.heuristics"
CONFIG = "triton.Config"
NEXT_POWER_OF_2 = "triton.next_power_of_2"
CDIV = "triton.cdiv"
#: Ceiling division on the host (``triton.cdiv``) and in a kernel (``tl.cdiv``).
CDIVS = frozenset({CDIV, "triton.language.cdiv"})
SET_ALLOCATOR = "triton.set_allocator"
#: Calls that hand a kernel to ``torch.compile`` as it is: ``wrap_triton(k)[grid](...)`` launches ``k``.
KERNEL_WRAPPERS = frozenset({"torch.library.wrap_triton", "torch.library.capture_triton",
                             "torch._library.triton.wrap_triton", "torch._library.triton.capture_triton"})
HOST_TENSOR_DESCRIPTOR = "triton.tools.tensor_descriptor.TensorDescriptor"

KERNEL_DECORATORS = frozenset({JIT, AUTOTUNE, HEURISTICS})
CONSTEXPR_ANNOTATIONS = frozenset({TL + "constexpr"})
CONSTEXPR = TL + "constexpr"

LOAD = TL + "load"
STORE = TL + "store"
DOT = TL + "dot"
ARANGE = TL + "arange"
EXPAND_DIMS = TL + "expand_dims"
POINTER_TYPE = TL + "pointer_type"
CAST = TL + "cast"
TRANS = TL + "trans"
PERMUTE = TL + "permute"
PROGRAM_ID = TL + "program_id"
NUM_PROGRAMS = TL + "num_programs"
ZEROS = TL + "zeros"
FULL = TL + "full"
RESHAPE = TL + "reshape"
VIEW = TL + "view"
BROADCAST_TO = TL + "broadcast_to"
STATIC_ASSERT = TL + "static_assert"
#: Random-number generation (``triton.language.random``); vendor libdevices re-export philox.
RANDOM = frozenset(TL + n for n in (
    "rand", "randn", "randint", "randint4x", "rand4x", "randn4x", "philox", "philox_impl",
    "uint_to_uniform_float", "pair_uniform_to_normal", "random.philox", "random.randint4x",
))
WHERE = TL + "where"
MAKE_TENSOR_DESCRIPTOR = TL + "make_tensor_descriptor"
MAKE_BLOCK_PTR = TL + "make_block_ptr"
ADVANCE = TL + "advance"
ATOMIC_ADD = TL + "atomic_add"
STATIC_RANGE = TL + "static_range"
RANGE = TL + "range"
#: Calls that return their first argument with a compiler hint attached.
VALUE_HINTS = frozenset({TL + "multiple_of", TL + "max_contiguous", TL + "max_constancy"})
HINTS = VALUE_HINTS | {TL + "assume"}
#: erf and its relatives: Triton checks their argument is fp32 or fp64 (``math._check_dtype``;
#: libdevice dispatches only fp32 and fp64 symbols).
ERF_FUNCTIONS = frozenset({
    TL + "erf", TL + "math.erf",
    *(TL + f"extra.libdevice.{n}" for n in ("erf", "erfc", "erfcx", "erfinv", "erfcinv")),
})
ATOMICS = frozenset(TL + n for n in (
    "atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas", "atomic_and",
    "atomic_or", "atomic_xor",
))
REDUCTIONS = frozenset(TL + n for n in ("sum", "max", "min", "argmax", "argmin", "reduce", "xor_sum"))
#: Calls whose result has the broadcast shape of their tensor arguments (elementwise math,
#: selects, casts, hints, loads) or a reshaping of their first one: a block stays a block.
SHAPE_PRESERVING = frozenset({LOAD, WHERE, CAST, BROADCAST_TO, EXPAND_DIMS, RESHAPE, VIEW, TRANS, PERMUTE,
                              *VALUE_HINTS}) | frozenset(TL + n for n in (
    "abs", "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "sigmoid", "maximum",
    "minimum", "clamp", "fma", "cdiv", "umulhi", "fdiv", "div_rn", "floor", "ceil", "erf", "math.exp",
    "math.exp2", "math.log", "math.log2", "math.sqrt", "math.rsqrt", "math.abs", "math.fma",
    "extra.libdevice.isnan", "extra.libdevice.isinf", "extra.libdevice.isfinited", "extra.libdevice.signbit",
))
#: Methods of a kernel value that keep its shape (``x.to(tl.float32)``).
SHAPE_PRESERVING_METHODS = frozenset({"to"})
ASSUME = TL + "assume"
DEVICE_PRINT = TL + "device_print"

#: Parameter lists of the calls rules read arguments of (``triton/language/core.py``).
SIGNATURES: dict[str, tuple[str, ...]] = {
    LOAD: ("pointer", "mask", "other", "boundary_check", "padding_option", "cache_modifier",
           "eviction_policy", "volatile"),
    STORE: ("pointer", "value", "mask", "boundary_check", "cache_modifier", "eviction_policy"),
    DOT: ("input", "other", "acc", "input_precision", "allow_tf32", "max_num_imprecise_acc",
          "out_dtype"),
    ARANGE: ("start", "end"),
    CAST: ("input", "dtype", "fp_downcast_rounding", "bitcast"),
    ZEROS: ("shape", "dtype"),
    FULL: ("shape", "value", "dtype"),
    PROGRAM_ID: ("axis",),
    MAKE_TENSOR_DESCRIPTOR: ("base", "shape", "strides", "block_shape"),
    RESHAPE: ("input", "shape", "can_reorder"),
    VIEW: ("input", "shape"),
    MAKE_BLOCK_PTR: ("base", "shape", "strides", "offsets", "block_shape", "order"),
    ADVANCE: ("base", "offsets"),
    ATOMIC_ADD: ("pointer", "val", "mask", "sem", "scope"),
    AUTOTUNE: ("configs", "key", "prune_configs_by", "reset_to_zero", "restore_value",
               "pre_hook", "post_hook", "warmup", "rep", "use_cuda_graph", "do_bench"),
    HEURISTICS: ("values",),
    CONFIG: ("kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg", "pre_hook"),
}

#: Float element types: wide enough for erf/libdevice, and the low-precision ones.
FLOAT_WIDE = frozenset({"float32", "float64"})
FLOAT_LOW = frozenset({
    "float16", "bfloat16", "float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16",
})
INTS = frozenset({f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64)} | {"int1"})
DTYPES = FLOAT_WIDE | FLOAT_LOW | INTS

#: The Triton element type that holds each torch dtype bit for bit (``torch.float8_e4m3fn`` is
#: ``tl.float8e4nv``, ``torch.bool`` is ``tl.int1``); names as ``dtypes.torch_dtype`` gives them.
TORCH_TO_TRITON: dict[str, str] = {
    **{n: n for n in ("float16", "bfloat16", "float32", "float64")},
    **{f"{s}int{b}": f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64)},
    "bool": "int1", "float8_e4m3fn": "float8e4nv", "float8_e5m2": "float8e5",
    "float8_e4m3fnuz": "float8e4b8", "float8_e5m2fnuz": "float8e5b16",
}
#: Bits per element in memory (``int1`` is stored as a byte, like ``torch.bool``).
BITS: dict[str, int] = {
    **{n: int(n[-2:]) for n in ("float16", "bfloat16", "float32", "float64")},
    **{f"{s}int{b}": b for s in ("", "u") for b in (8, 16, 32, 64)},
    "int1": 8, **{n: 8 for n in FLOAT_LOW if n.startswith("float8")},
}

# --- versions -----------------------------------------------------------------------------------
from kernelint.model.dsl.versioning import ADDED, CHANGED, DEPRECATED, REMOVED, ApiChange  # noqa: E402

#: Distribution names a project may pin Triton under.
DISTRIBUTIONS = ("triton", "pytorch-triton")
#: Releases kernelint knows, oldest first (PyPI; ``pip index versions triton``, 2026-12). The
#: newest is the target when a project pins nothing and none is installed.
RELEASES = ("1.0.0", "1.1.1", "2.0.0", "2.1.0", "2.2.0", "2.3.0", "2.3.1", "3.0.0", "3.1.0", "3.2.0",
            "3.3.0", "3.3.1", "3.4.0", "3.5.0", "3.5.1", "3.6.0", "3.7.0", "3.7.1", "3.8.0", "3.9.0")

TOOLS_EXPERIMENTAL_DESCRIPTOR = "triton.tools.experimental_descriptor"
TOOLS_TENSOR_DESCRIPTOR = "triton.tools.tensor_descriptor"
EXPERIMENTAL_DESCRIPTOR_LOAD = TL + "_experimental_descriptor_load"
EXPERIMENTAL_DESCRIPTOR_STORE = TL + "_experimental_descriptor_store"
EXPERIMENTAL_MAKE_TENSOR_DESCRIPTOR = TL + "_experimental_make_tensor_descriptor"
LOAD_TENSOR_DESCRIPTOR = TL + "load_tensor_descriptor"
STORE_TENSOR_DESCRIPTOR = TL + "store_tensor_descriptor"
DO_BENCH = "triton.testing.do_bench"
#: Behaviours (not names) the version table records.
NON_CONSTEXPR_GLOBALS_REJECTED = "reading a module global that is not tl.constexpr(...) in @jit code"
ANNOTATED_GLOBALS_REJECTED = "reading a module global annotated `X: tl.constexpr = v` in @jit code"
META_KERNELS = "kernels that take **meta and read meta['NAME'] (Triton 1.x)"
AUTOTUNE_UNKNOWN_KEY_RAISES = "autotune key naming no kernel parameter raises ValueError"
TENSOR_AND_OR = "Python `and` / `or` on non-scalar tensors in @jit code"
META_PARAMETER_REJECTED = "@triton.jit on a function with a **kwargs parameter raises TypeError"
PLAIN_FUNCTION_REFERENCE_REJECTED = "@jit code referencing a plain Python function (no @triton.jit) fails to compile"

_WHEELS = "PyPI wheel sources compared release by release (triton/language/__init__.py, core.py)"
_PR6488 = "triton PR #6488 ('[BC-Breaking] Kill experimental descriptor APIs'); " + _WHEELS

#: When Triton APIs and behaviours appeared, were deprecated, removed or changed. Every version
#: was read from the released wheels' sources (3.0.0 to 3.9.0 from PyPI, 1.0.0/1.1.1/2.0.0/2.3.1
#: for the older rows) and is cited with the pull request or thread that explains it.
API_CHANGES: tuple[ApiChange, ...] = (
    # The experimental TMA descriptor API (PR #3739) and its removal.
    ApiChange(EXPERIMENTAL_DESCRIPTOR_LOAD, REMOVED, "3.4.0", _PR6488,
              replacement="a tensor descriptor's `.load(offsets)` (tl.make_tensor_descriptor or a host "
                          "TensorDescriptor)"),
    ApiChange(EXPERIMENTAL_DESCRIPTOR_STORE, REMOVED, "3.4.0", _PR6488,
              replacement="a tensor descriptor's `.store(offsets, value)`"),
    ApiChange(TL + "_experimental_reinterpret_tensor_descriptor", REMOVED, "3.4.0", _PR6488,
              replacement="a host TensorDescriptor passed as the kernel argument"),
    ApiChange(EXPERIMENTAL_MAKE_TENSOR_DESCRIPTOR, ADDED, "3.3.0", _WHEELS + " (absent in 3.2.0)"),
    ApiChange(EXPERIMENTAL_MAKE_TENSOR_DESCRIPTOR, REMOVED, "3.4.0", _PR6488,
              replacement=MAKE_TENSOR_DESCRIPTOR, mechanical=True),
    ApiChange(MAKE_TENSOR_DESCRIPTOR, ADDED, "3.4.0", _WHEELS + " (3.3 spells it _experimental_make_tensor_descriptor)",
              replacement="tl._experimental_make_tensor_descriptor on 3.3, or a pin of 3.4 or later"),
    ApiChange(LOAD_TENSOR_DESCRIPTOR, ADDED, "3.4.0", _WHEELS),
    ApiChange(STORE_TENSOR_DESCRIPTOR, ADDED, "3.4.0", _WHEELS),
    ApiChange(TOOLS_EXPERIMENTAL_DESCRIPTOR, ADDED, "3.2.0", _WHEELS + " (triton/tools/experimental_descriptor.py)"),
    ApiChange(TOOLS_EXPERIMENTAL_DESCRIPTOR, REMOVED, "3.4.0", _PR6488 + " (renamed triton.tools.tensor_descriptor)",
              replacement=TOOLS_TENSOR_DESCRIPTOR),
    ApiChange(TOOLS_EXPERIMENTAL_DESCRIPTOR + ".create_1d_tma_descriptor", REMOVED, "3.4.0", _PR6488,
              replacement="triton.tools.tensor_descriptor.TensorDescriptor.from_tensor"),
    ApiChange(TOOLS_EXPERIMENTAL_DESCRIPTOR + ".create_2d_tma_descriptor", REMOVED, "3.4.0", _PR6488,
              replacement="triton.tools.tensor_descriptor.TensorDescriptor.from_tensor"),
    ApiChange(TOOLS_EXPERIMENTAL_DESCRIPTOR + ".TmaDescKernelParam", REMOVED, "3.4.0", _PR6488,
              replacement="triton.tools.tensor_descriptor.TensorDescriptor"),
    ApiChange(TOOLS_TENSOR_DESCRIPTOR, ADDED, "3.4.0", _PR6488),
    ApiChange(HOST_TENSOR_DESCRIPTOR, ADDED, "3.4.0", _PR6488),
    *(ApiChange(TL + "extra.libdevice." + name, REMOVED, "3.4.0", _PR6488)
      for name in ("experimental_device_tensormap_create1d", "experimental_device_tensormap_create2d",
                   "experimental_tensormap_fenceproxy_acquire")),
    # The allocator that device-side descriptors draw their scratch memory from.
    ApiChange(SET_ALLOCATOR, ADDED, "3.3.0", _WHEELS + " (triton/runtime/_allocation.py first ships in 3.3.0; "
              "not in 3.2.0)"),
    # Block pointers, replaced by tensor descriptors.
    ApiChange(MAKE_BLOCK_PTR, DEPRECATED, "3.7.0",
              "triton PR #9667 (warns 'tl.make_block_ptr is deprecated'); " + _WHEELS + " (3.6.0 does not warn)",
              replacement="tl.make_tensor_descriptor or a host TensorDescriptor"),
    ApiChange(MAKE_BLOCK_PTR, REMOVED, "3.9.0",
              "triton PR #10833 ('Remove block pointer support'); " + _WHEELS + " (3.9.0 raises "
              "NotImplementedError; 3.8.0 from PyPI still warns: its release branch kept block pointers)",
              replacement="tl.make_tensor_descriptor or a host TensorDescriptor"),
    ApiChange(ADVANCE, REMOVED, "3.9.0", "triton PR #10833; " + _WHEELS + " (3.9.0 has no tl.advance)",
              replacement="offsets passed to the descriptor's .load/.store"),
    # Keywords.
    ApiChange(DOT + "(allow_tf32=)", DEPRECATED, "3.0.0",
              "triton PR #3234 (input_precision) and PR #3498 (allow_tf32 kept, documented '*Deprecated.*'); "
              "the docstring says so from 3.0.0 to 3.9.0, which still accept it",
              replacement="input_precision=", mechanical=True),
    ApiChange(DO_BENCH + "(fast_flush=)", REMOVED, "3.2.0",
              "triton PR #4485 ('Remove the fast_flush parameter from do_bench'); FlashMLA PR #12; " + _WHEELS
              + " (triton/testing.py)", mechanical=True, note="drop the argument"),
    ApiChange(AUTOTUNE + "(warmup=)", DEPRECATED, "3.2.0",
              _WHEELS + " (triton/runtime/autotuner.py warns 'warmup, rep, and use_cuda_graph parameters are "
              "deprecated' from 3.2.0; still accepted in 3.9.0)", replacement="do_bench="),
    ApiChange(AUTOTUNE + "(rep=)", DEPRECATED, "3.2.0", _WHEELS + " (the same warning)", replacement="do_bench="),
    ApiChange(AUTOTUNE + "(use_cuda_graph=)", DEPRECATED, "3.2.0", _WHEELS + " (the same warning)",
              replacement="do_bench="),
    # Behaviours.
    ApiChange(NON_CONSTEXPR_GLOBALS_REJECTED, CHANGED, "3.0.0",
              "FlagGems PR #118, fms-acceleration issue #56; " + _WHEELS + " (compiler/code_generator.py "
              "'Cannot access global variable' from 3.0.0; absent in 2.3.1)"),
    ApiChange(ANNOTATED_GLOBALS_REJECTED, CHANGED, "3.3.0",
              "triton PR #5961; tritonbench PR #245; fms-acceleration PR #148; " + _WHEELS + " (3.2.0 still "
              "reads the module's __annotations__; 3.3.0 does not)"),
    ApiChange(META_KERNELS, CHANGED, "2.0.0",
              "wheel sources: 1.0.0 and 1.1.1 code_gen.py bind a kernel's **meta to the launch keywords; "
              "2.0.0's compiler has no such binding"),
    ApiChange(META_PARAMETER_REJECTED, CHANGED, "3.9.0",
              _WHEELS + " (runtime/jit.py raises 'JIT functions do not support **meta parameters' when the "
              "decorator runs; no such check in 2.0.0 to 3.8.0)"),
    ApiChange(AUTOTUNE_UNKNOWN_KEY_RAISES, CHANGED, "3.9.0",
              "triton PR #11602; " + _WHEELS + " (3.9.0 autotuner.py raises 'contains names that are not "
              "kernel arguments'; 3.8.0 does not)"),
    ApiChange(TENSOR_AND_OR, DEPRECATED, "3.4.0",
              "pytorch issue #158463; " + _WHEELS + " (code_generator.py warns from 3.4.0)",
              replacement="`&` / `|`"),
    ApiChange(PLAIN_FUNCTION_REFERENCE_REJECTED, CHANGED, "3.5.0",
              "NVIDIA/TransformerEngine PR #2286 ('Fix error with triton 3.5') and issue #2579; "
              + _WHEELS + " (runtime/jit.py DependenciesFinder.record_reference raises 'Unsupported function "
              "referenced' in 3.5.1 and 3.6.0, whatever the arguments; absent in 3.4.0, where only Triton "
              "operations on a tensor inside the function fail)",
              replacement="@triton.jit on the helper (or @tl.constexpr_function for compile-time helpers)"),
)
