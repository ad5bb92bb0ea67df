"""cuTile's API as kernelint reads it (``cuda.tile``, imported as ``ct``): qualified names,
argument positions, decorators. cuTile indexes tiles, not elements: ``ct.load(x, index=(i,),
shape=(T,))`` reads elements ``i*T .. i*T+T-1``."""
from __future__ import annotations

IMPORT_ROOTS = ("cuda.tile",)
SOURCE_MARKERS = ("cuda.tile", "cuda import tile")

CT = "cuda.tile."

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
ASTYPE = CT + "astype"

SIGNATURES: dict[str, tuple[str, ...]] = {
    LAUNCH: ("stream", "grid", "kernel", "kernel_args"),
    LOAD: ("array", "index", "shape"),
    STORE: ("array", "index", "tile"),
    BID: ("axis",),
    MMA: ("x", "y", "acc"),
    ASTYPE: ("x", "dtype"),
}
