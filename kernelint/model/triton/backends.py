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
#: A text none of these occur in cannot match ``_FOREIGN`` (each alternative needs one): a plain
#: substring scan rules most files out. (Bare ``npu`` occurs in every ``input``: with it, the
#: regular expression ran on most files, 1.7 ms each.)
_NEEDED = ("torch_npu", "torch.npu", "torch_mlu", "torch.mlu", "torch.xpu", "triton.language.extra.", "triton_ascend")
_cache: "weakref.WeakKeyDictionary[FileContext, bool]" = weakref.WeakKeyDictionary()


def foreign_backend(ctx: "FileContext") -> bool:
    """The file targets a non-NVIDIA Triton backend (an NPU, MLU or XPU fork)."""
    found = _cache.get(ctx)
    if found is None:
        found = _cache[ctx] = any(text in ctx.source for text in _NEEDED) and _FOREIGN.search(ctx.source) is not None
    return found
