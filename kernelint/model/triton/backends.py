"""Which accelerator a file's Triton code is written for.

Rules about NVIDIA Triton's compiler limits (power-of-two ranges, the minimum `tl.dot` K) do
not hold for vendor forks that compile Triton for other chips: Ascend NPUs (``torch_npu``,
``torch.npu``, ``triton.language.extra.cann``), Cambricon MLUs (``torch_mlu``,
``triton.language.extra.mlu``) and Kunlunxin XPUs. Projects such as FlagGems keep one backend
folder per vendor, and their code relies on what those compilers accept. ``foreign_backend``
answers from the file's text once per file.
"""
from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

_FOREIGN = re.compile(
    r"\btorch_npu\b|\btorch\.npu\b|\btorch_mlu\b|\btorch\.mlu\b|\btorch\.xpu\b|"
    r"triton\.language\.extra\.(?:cann|ascend|mlu|kunlunxin|xpu)\b|\btriton_ascend\b"
)
_WORDS = ("npu", "mlu", "xpu", "cann", "ascend", "kunlunxin")
_cache: "weakref.WeakKeyDictionary[FileContext, bool]" = weakref.WeakKeyDictionary()


def foreign_backend(ctx: "FileContext") -> bool:
    """The file targets a non-NVIDIA Triton backend (an NPU, MLU or XPU fork)."""
    found = _cache.get(ctx)
    if found is None:
        # Every form names one of these words: a plain substring scan rules most files out.
        found = _cache[ctx] = any(word in ctx.source for word in _WORDS) and _FOREIGN.search(ctx.source) is not None
    return found
