"""KL103 int32-offset-overflow: A row index (program id or loaded index) times a run-time stride is
computed in int32 and wraps past 2^31 elements."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Severity
from kernelint.model import intwidth
from kernelint.model.dsl import triton
from kernelint.rules import Report, Rule


class Int32OffsetOverflow(Rule):
    code = "KL103"
    name = "int32-offset-overflow"
    family = "triton-pointers"
    dsl = "triton"
    severity = Severity.ERROR
    # Reproduced on the H200, but the static signal cannot tell a tensor that reaches 2^31
    # elements from a small one (docs/precision.md): off until named.
    default_enabled = False
    evidence_class = "crash"
    summary = ("A row index (program id or loaded index) times a run-time stride is computed in int32 "
               "and wraps past 2^31 elements.")
    wants_finish = True
    doc = """
## What it does
Flags, in a Triton kernel, a product of a row index and a run-time size that builds an address
(of a `tl.load`, `tl.store`, atomic, block pointer or tensor descriptor) with neither factor
converted to `tl.int64` first. The row index is `tl.program_id(...)` or arithmetic on it
(`pid // H`, `i_b * T + i_t`), or one element loaded from an index table (`cu_seqlens`, token or
expert ids); the size is an integer kernel argument (a stride, a row length, a sequence length).
`row * stride`, `(i_b * T + i_t) * H * K` and `x_ptr += row * stride` are found at the
outermost product; all the addresses computed from one index are reported once, at the first,
since converting the index where it is defined fixes them all. A program id times a constexpr
(`pid * BLOCK`) counts tiles and is not reported; a loaded index (a token offset) times any
size is.

It stays silent once a factor is int64 (`tl.program_id(0).to(tl.int64)`, `stride.to(tl.int64)`,
an int64 value in the expression), for products of an index and a `tl.constexpr` tile size
(`pid * BLOCK`), for `tl.arange` offset vectors and for loop indices of persistent kernels.

Off by default although the crash reproduced: the kernel text does not say which tensors can
reach 2^31 elements, and on 13 real repositories 14 of 40 sampled findings addressed such a
tensor (docs/precision.md). Select it to audit kernels that index token-sized tensors.

## Why is this bad?
Triton types the program id as int32 and passes an integer argument as int32 whenever its value
fits. Both factors fit, their product does not: once a tensor holds more than 2^31 elements
(2^20 tokens x 2048 hidden), `row * stride` wraps to a negative number and the kernel reads or
writes 4 GB before the tensor: an illegal memory access, or silently wrong rows when the wrapped
address lands in another allocation. Converting the product afterwards is too late
(`(row * stride).to(tl.int64)` converts the wrapped value).

## Example
```python
row = tl.program_id(0)
x = tl.load(x_ptr + row * stride_row + cols, mask=mask)
```

## Use instead
```python
row = tl.program_id(0).to(tl.int64)
x = tl.load(x_ptr + row * stride_row + cols, mask=mask)
```
"""
    references = f"""
- {SEED}, 'Runtime errors', '`cudaErrorIllegalAddress`', 'Root Cause 2: int32 stride overflow'.
- fla-org/flash-linear-attention PRs #1080 and #1082 (int64 offsets across ~80 kernels);
  triton-lang/triton issues #832 and #6748; databricks/megablocks #185; sgl-project/sglang #20389.
"""

    def finish(self, ctx):
        for kernel in ctx.kernels:
            if kernel.dsl != "triton":
                continue
            by_origin: dict[int, list] = {}
            for found in intwidth.int32_address_products(ctx, kernel):
                by_origin.setdefault(id(found.origin), []).append(found)
            for products in by_origin.values():
                first = min(products, key=lambda f: (f.product.lineno, f.product.col_offset))
                source = ("the program id" if ctx.call_name(first.origin) == triton.PROGRAM_ID
                          else "a loaded index")
                more = f" (and {len(products) - 1} more address(es) from the same index)" if len(products) > 1 else ""
                yield Report(first.product,
                             f"`{short(first.product)}` multiplies {source} by the size `{first.size.id}` "
                             f"in int32{more}: past 2^31 elements the address wraps; convert the index "
                             f"with `.to(tl.int64)` where it is defined")
