"""The dtype an expression names literally: ``tl.float16`` -> ``"float16"``, ``torch.half`` ->
``"float16"``, through module constants (``ACC_DTYPE = tl.float32``). The one reader of dtype
spellings, for kernel-side inference (``dtypes.py``) and host facts (``project/host.py``) alike."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.dsl.triton import DTYPES as TRITON_DTYPES
from kernelint.model.dsl.triton import TL

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

#: torch spellings that mean the same dtype (``torch.int`` is int32, ``torch.half`` fp16, ...).
_TORCH_ALIASES = {
    "int": "int32", "long": "int64", "short": "int16", "half": "float16", "float": "float32",
    "double": "float64", "bfloat16": "bfloat16",
}


def triton_dtype(ctx: "FileContext", expr: ast.AST | None) -> str | None:
    """The ``triton.language`` dtype ``expr`` names literally (``"float16"``), following module
    constants such as ``ACC_DTYPE = tl.float32``; None for constexpr parameters and anything else."""
    return _literal_dtype(ctx, expr, TL, TRITON_DTYPES)


def torch_dtype(ctx: "FileContext", expr: ast.AST | None) -> str | None:
    """The ``torch`` dtype ``expr`` names (``torch.int`` -> ``"int32"``), or None."""
    name = _literal_dtype(ctx, expr, "torch.", None)
    return _TORCH_ALIASES.get(name, name) if name else None


def torch_dtype_named(name: str) -> str:
    """The torch dtype an attribute name spells (``"half"`` -> ``"float16"``), as ``torch_dtype``
    reads ``torch.half``; for tables that hold dtype names and ``getattr(torch, name)`` them."""
    return _TORCH_ALIASES.get(name, name)


def _literal_dtype(ctx, expr, prefix: str, allowed) -> str | None:
    if expr is None:
        return None
    names = set()
    for value in ctx.values_of(expr):
        qualname = ctx.qualname(value) if value is not None else None
        if not qualname or not qualname.startswith(prefix):
            return None
        name = qualname[len(prefix):]
        if "." in name or (allowed is not None and name not in allowed):
            return None
        names.add(name)
    return names.pop() if len(names) == 1 else None
