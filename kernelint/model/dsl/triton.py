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
