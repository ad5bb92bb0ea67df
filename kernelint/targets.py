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
