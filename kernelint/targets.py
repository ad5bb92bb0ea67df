"""GPU target names: ``target-arch = "sm_90"`` parsed once, shared by the config and the engine."""
from __future__ import annotations

import re

_ARCH = re.compile(r"sm_?(\d+)a?", re.IGNORECASE)


class TargetError(ValueError):
    """A target-arch string that names no compute capability."""


def compute_capability(target_arch) -> int | None:
    """``"sm_90"`` (also ``sm90``, ``sm_90a``) -> 90; None when no target is set."""
    if target_arch is None:
        return None
    match = _ARCH.fullmatch(target_arch) if isinstance(target_arch, str) else None
    if match is None:
        raise TargetError(f"target-arch must look like 'sm_90', not {target_arch!r}")
    return int(match.group(1))
