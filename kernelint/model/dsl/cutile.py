"""cuTile's API as kernelint reads it (``cuda.tile``, imported as ``ct``): qualified names,
argument positions, decorators. cuTile indexes tiles, not elements: ``ct.load(x, index=(i,),
shape=(T,))`` reads elements ``i*T .. i*T+T-1``."""
from __future__ import annotations

IMPORT_ROOTS = ("cuda.tile",)
SOURCE_MARKERS = ("cuda.tile", "cuda import tile")

CT = "cuda.tile."

#: ``cuda.tile._stub.load`` and friends are the public ``cuda.tile.load``.
CANONICAL_PREFIXES = (("cuda.tile._stub.", "cuda.tile."), ("cuda.tile._", "cuda.tile."))

KERNEL = CT + "kernel"
FUNCTION = CT + "function"
KERNEL_DECORATORS = frozenset({KERNEL})
CONSTANT = CT + "Constant"
CONSTEXPR_ANNOTATIONS = frozenset({CONSTANT, CT + "ConstantAnnotation"})

LAUNCH = CT + "launch"
BID = CT + "bid"
NUM_BLOCKS = CT + "num_blocks"
LOAD = CT + "load"
STORE = CT + "store"
MMA = CT + "mma"
MATMUL = CT + "matmul"
ASTYPE = CT + "astype"
FULL = CT + "full"
ZEROS = CT + "zeros"
ONES = CT + "ones"
CDIV = CT + "cdiv"
NUM_TILES = CT + "num_tiles"
ARANGE = CT + "arange"
WHERE = CT + "where"
GATHER = CT + "gather"
PADDING_MODE = CT + "PaddingMode"
# cuTile has no erf (cuda-tile 1.7.0: no ``erf`` in ``cuda.tile`` or its ``_stub.py``); kernels
# that need it write a polynomial of their own, so KL104's dtype check has nothing to read here.

#: Functions whose result has the shape and dtype of their first argument (``_stub.py``).
SAME_TILE_FUNCTIONS = frozenset(CT + n for n in (
    "reshape", "permute", "transpose", "broadcast_to", "expand_dims", "extract",
))
#: The same operations as ``Tile`` methods (``x.reshape(...)``, ``x.astype(...)``).
TILE_METHODS = frozenset({"reshape", "permute", "transpose", "extract", "astype"})

#: Reductions over tile axes (``_stub.py``: ``sum(x, /, axis=None, *, keepdims=False)``) and the
#: padding whose value leaves each one unchanged: ``None`` where no ``PaddingMode`` is neutral.
REDUCTION_IDENTITY = {
    CT + "sum": "ZERO",
    CT + "max": "NEG_INF",
    CT + "argmax": "NEG_INF",
    CT + "min": "POS_INF",
    CT + "argmin": "POS_INF",
    CT + "prod": None,
}
#: Functions that compute each element of their result from the same element of their tile
#: operands (``_stub.py``), so a tile's padded lanes stay in the same lanes of the result.
ELEMENTWISE_FUNCTIONS = frozenset(CT + n for n in (
    "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "floor", "ceil", "abs", "negative", "add", "sub", "mul", "truediv", "floordiv", "pow", "mod",
    "minimum", "maximum", "astype",
))

SIGNATURES: dict[str, tuple[str, ...]] = {
    LAUNCH: ("stream", "grid", "kernel", "kernel_args"),
    LOAD: ("array", "index", "shape"),
    STORE: ("array", "index", "tile"),
    BID: ("axis",),
    MMA: ("x", "y", "acc"),
    MATMUL: ("x", "y"),
    ASTYPE: ("x", "dtype"),
    FULL: ("shape", "fill_value", "dtype"),
    ZEROS: ("shape", "dtype"),
    ONES: ("shape", "dtype"),
    CT + "reshape": ("x", "shape"),
    NUM_TILES: ("array", "axis", "shape"),
    ARANGE: ("size",),
    CDIV: ("x", "y"),
    **{name: ("x", "axis") for name in REDUCTION_IDENTITY},
}

#: Element types (``ct.float32``, ...; ``_datatype.py``). ``tfloat32`` is the tensor-core input
#: type an explicit ``ct.astype(x, ct.tfloat32)`` selects; ``ct.mma`` on ``float32`` tiles
#: multiplies in full fp32.
FLOAT_TYPES = frozenset({
    "float16", "bfloat16", "float32", "float64", "tfloat32", "float8_e4m3fn", "float8_e5m2",
    "float8_e8m0fnu", "float4_e2m1fn",
})
INT_TYPES = frozenset({f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64)} | {"bool_"})
DTYPES = FLOAT_TYPES | INT_TYPES

#: A launch grid is a tuple of at most this many block counts (``_cext.launch``: ``TypeError:
#: Grid must be a tuple``; ``ValueError: Grid dimensions must be at most 3``); shorter tuples are
#: padded with 1s.
MAX_GRID_DIMS = 3

# --- versions -----------------------------------------------------------------------------------
from kernelint.model.dsl.versioning import ADDED, CHANGED, ApiChange  # noqa: E402

#: Distribution names a project may pin cuTile under.
DISTRIBUTIONS = ("cuda-tile",)
#: Releases kernelint knows, oldest first (cutile-python CHANGELOG.md and PyPI, 2026-12).
RELEASES = ("1.0.0", "1.0.1", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "1.5.0", "1.6.0", "1.7.0")

#: Behaviours the version table records.
LOOP_FIRST_ASSIGNMENT_ERROR = "a variable first assigned in a for loop and read after it is an error"
CONSTANT_OMITTED_FROM_ABI = "parameters annotated ct.Constant are left out of the compiled kernel's ABI"

_CHANGELOG = "cutile-python CHANGELOG.md"

#: When cuTile APIs and behaviours appeared or changed (release notes of NVIDIA/cutile-python).
API_CHANGES: tuple[ApiChange, ...] = (
    ApiChange(LOOP_FIRST_ASSIGNMENT_ERROR, CHANGED, "1.1.0", _CHANGELOG + " 1.1.0 ('Stricter rules for "
              "potentially-undefined variable detection: if a variable is first assigned inside a for loop, and "
              "then used after the loop, it is now an error')"),
    ApiChange(CONSTANT_OMITTED_FROM_ABI, CHANGED, "1.3.0", _CHANGELOG + " 1.3.0, ABI Changes ('Change kernel ABI "
              "convention to omit parameters annotated with cuda.tile.Constant')",
              note="matters to code that launches an exported (ahead-of-time) kernel by hand; ct.launch is unchanged"),
    ApiChange(CT + "abs", ADDED, "1.1.0", _CHANGELOG + " 1.1.0 ('Add ct.abs() for completeness')"),
    ApiChange(CT + "reduce", ADDED, "1.1.0", _CHANGELOG + " 1.1.0 ('Add support for custom reduction via ct.reduce()')"),
    ApiChange(CT + "atan2", ADDED, "1.2.0", _CHANGELOG + " 1.2.0 ('Add ct.atan2(y, x)')"),
    ApiChange(CT + "static_iter", ADDED, "1.2.0", _CHANGELOG + " 1.2.0 ('Add ct.static_iter keyword')"),
    ApiChange(CT + "compiler_timeout", ADDED, "1.3.0", _CHANGELOG + " 1.3.0 ('Add API function compiler_timeout()')"),
    ApiChange(CT + "mma_scaled", ADDED, "1.4.0", _CHANGELOG + " 1.4.0 ('Add ct.mma_scaled() operation')"),
    ApiChange(CT + "assume_divisible_by", ADDED, "1.5.0", _CHANGELOG + " 1.5.0 ('Add ct.assume_divisible_by(x, "
              "divisor)')"),
    ApiChange(CT + "ensure_constant", ADDED, "1.6.0", _CHANGELOG + " 1.6.0 ('Add ct.ensure_constant()')"),
)
