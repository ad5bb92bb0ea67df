"""KL301 assumed-align-misuse: `from_dlpack(view, assumed_align=N)` promises an alignment an offset
view does not have."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.core.calls import argument
from kernelint.model.dsl.cute import FROM_DLPACK
from kernelint.model.project.torch_views import offset_view
from kernelint.rules import Report, Rule

#: The smallest promise worth checking: vectorised (128-bit) copies need 16-byte alignment, and an
#: offset view is always aligned to its element size, which is at most 8 bytes.
_CHECKED_ALIGNMENT = 16



class AssumedAlignMisuse(Rule):
    code = "KL301"
    name = "assumed-align-misuse"
    family = "cute-memory"
    dsl = "cute"
    severity = Severity.ERROR
    evidence_class = "crash"
    summary = "`from_dlpack(view, assumed_align=N)` promises an alignment an offset view does not have."
    doc = """
## What it does
Reports `from_dlpack(t, assumed_align=N)` (N of 16 or more) where `t` is a view that starts
inside its allocation: a slice with a nonzero start (`x[1:]`, `x[:, 3:]`), `x.narrow(dim, start,
n)` or `x.as_strided(size, stride, offset)`, directly or through a local name and
pointer-keeping methods such as `.view()` or `.t()`.

## Why is this bad?
`assumed_align` is a promise the compiler builds on: it picks vectorised loads and stores that
need the tensor's data pointer to be a multiple of N bytes. PyTorch allocations are aligned to
256 bytes, but a view that skips `k` elements starts `k * element_size` bytes later, which is
aligned only to the element size in general. CuTe DSL checks the base pointer when the function
is called and raises `RuntimeError: Tensor data pointer is not aligned to 16 bytes.`; views
derived inside the kernel from such a base are not checked and can fault instead.

## Example
```python
x = torch.randn(4097, device="cuda")
mX = from_dlpack(x[1:], assumed_align=16)
```

## Use instead
Copy the view into a fresh allocation first, or promise only what the view guarantees:
```python
mX = from_dlpack(x[1:].clone(), assumed_align=16)
```
`assumed_align=32` (or more) on a tensor that is its own allocation is fine. `.contiguous()` is
not a fix for a view that offsets only the first dimension (`x[1:]`, `x.narrow(0, 1, n)`): such
a view of a contiguous tensor is contiguous already, so `.contiguous()` returns it unchanged,
offset pointer included, and kernelint reports it. On other views (`x[:, 3:]`) it copies into a
fresh, aligned allocation, and kernelint stays silent.
"""
    references = (
        "CuTe DSL kernel skill, 'Static vs dynamic' (torch interop: `assumed_align` is a contract) "
        "and 'Failure → diagnosis table' (copy-alignment verifier errors)."
    )
    prior_evidence = (
        "`from_dlpack(view, assumed_align=16)` on a view that is not 16-byte aligned: CuTe DSL raises "
        "`RuntimeError: Tensor data pointer is not aligned to 16 bytes.` at call time (H200, "
        "nvidia-cutlass-dsl 4.8.1)."
    )
    node_types = (ast.Call,)
    calls = frozenset({FROM_DLPACK})

    def check(self, node: ast.Call, ctx):
        if not ctx.is_call(node, FROM_DLPACK) or not node.args:
            return
        align = argument(node, "assumed_align")
        if align is None or (ctx.resolve_int(align) or 0) < _CHECKED_ALIGNMENT:
            return
        view = offset_view(ctx, node.args[0])
        if view is not None:
            yield Report(
                node,
                f"`assumed_align={ctx.resolve_int(align)}` on a view that starts inside its allocation "
                f"(`{ast.unparse(view)}`); its data pointer need not be aligned. Copy it (`.clone()`) "
                "or lower the promise",
            )

