"""GPU target names: ``target-arch = "sm_90"`` parsed once, shared by the config and the engine."""
from __future__ import annotations

import re

#: At most four digits: a longer number names no GPU, and ``int()`` of a 5,000-digit string
#: raises (Python's integer-string conversion limit).
_ARCH = re.compile(r"sm_?(\d{1,4})a?", re.IGNORECASE)


class TargetError(ValueError):
    """A target-arch string that names no compute capability."""


def compute_capability(target_arch) -> int | None:
    """``"sm_90"`` (also ``sm90``, ``sm_90a``) -> 90; None when no target is set."""
    if target_arch is None:
        return None
    match = _ARCH.fullmatch(target_arch) if isinstance(target_arch, str) else None
    if match is None:
        shown = repr(target_arch)
        shown = shown if len(shown) <= 40 else f"{shown[:30]}... ({len(str(target_arch))} characters)"
        raise TargetError(f"target-arch must look like 'sm_90', not {shown}")
    return int(match.group(1))


#: Shared memory one thread block may use, in bytes (the CUDA programming guide's "maximum amount
#: of shared memory per thread block", the opt-in limit Triton checks as "Hardware limit"), by
#: compute capability.
SHARED_MEMORY_PER_BLOCK = {
    70: 98304, 72: 98304, 75: 65536, 80: 166912, 86: 101376, 87: 166912, 89: 101376, 90: 232448,
    100: 232448, 103: 232448, 120: 101376, 121: 101376,
}
#: The most any listed GPU allows: what no target can exceed.
LARGEST_SHARED_MEMORY_PER_BLOCK = max(SHARED_MEMORY_PER_BLOCK.values())


def shared_memory_limit(target_sm: int | None) -> int | None:
    """Bytes of shared memory a block may use on ``target_sm`` (no target: the largest any GPU
    allows); None for a compute capability the table does not know."""
    if target_sm is None:
        return LARGEST_SHARED_MEMORY_PER_BLOCK
    return SHARED_MEMORY_PER_BLOCK.get(target_sm)
