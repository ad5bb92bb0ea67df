"""KL103 int32-offset-overflow: A row index (program id or loaded index) times a run-time stride is
computed in int32 and wraps past 2^31 elements."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Severity
from kernelint.model.dsl import triton
from kernelint.model.index import overflow
from kernelint.rules import Because, Report, Rule


class Int32OffsetOverflow(Rule):
    code = "KL103"
    name = "int32-offset-overflow"
    family = "triton-pointers"
    dsl = "triton"
    severity = Severity.ERROR
    # Reproduced on the H200; since issue 20 it reports only offsets the program model shows can
    # pass 2^31 in a data-sized tensor: 60 of 66 corpus sites true (docs/precision.md).
    default_enabled = True
    evidence_class = "crash"
    summary = ("A row index (program id or loaded index) times a run-time stride is computed in int32 "
               "and wraps past 2^31 elements.")
    per_kernel = "triton"
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

It reports only what the program model shows can pass 2^31 (`kernelint/model/index/overflow.py`):
for a launch of the kernel found in the project (its file or the modules that import it), the
address must point into a tensor whose host shape grows with the data (a per-call size, such as
the batch or token count, times the last, feature dimension of some tensor: `(M, N)` from
`M, N = x.shape`, `(B, T, H, K)`, `new_empty(NK, *v.shape)`), and the product's bound under the
launch (program ids over the launched grid, parameters replaced by the host sizes passed) must
grow with a per-call size times another size, or come from a loaded index (a token offset spans
the tensor). The message names the tensor, its shape and the element count past which it wraps.

Shapes are followed through what wrappers do to a tensor before the launch: `*batch, N =
x.shape` and `x.view(-1, N)` / `x.reshape(-1, x.shape[-1])` of a tensor of any rank (its rows are
`x.numel() // N`: the product of the leading dimensions), a transpose by a parameter axis (the
element count survives), the halves of `xy.chunk(2, dim=-1)` (with the whole row's stride), a
name bound more than once when every binding gives one shape (`if x.stride(-1) != 1: x =
x.contiguous()`), `shape = x.shape; shape[0]`, sizes and tensors a helper returns in a tuple
(`BLOCK_SIZE, num_warps = calculate_settings(n)`, `q, k = cast_and_contiguous(q, k)`), and
launches through
`torch.library.wrap_triton(kernel)[grid](...)`. A launch under an `if` that the host sizes decide
against (`else` of `if n_cols <= BLOCK_SIZE` with `BLOCK_SIZE = next_power_of_2(n_cols)`) never
runs and is not read.

It stays silent once a factor is int64 (`tl.program_id(0).to(tl.int64)`, `stride.to(tl.int64)`,
an int64 value in the expression), for products of an index and a `tl.constexpr` tile size
(`pid * BLOCK`), for `tl.arange` offset vectors, for loop indices of persistent kernels, for
tables indexed by batch and head (a `(B, H)` scale table, a 1-D per-row vector), for a table
with one row per block of rows (`(cdiv(M, block_size), K)` scales), for an offset that only
addresses an index table whose loaded value then offsets another tensor (`cu_seqlens + (i + 1) *
stride`), for rank-3 tensors (`(tokens, heads, head_dim)` and `(batch, seq, heads)` read alike),
and wherever no launch is found or the shape of the tensor passed cannot be read (a parameter
whose shape the wrapper never reads, bindings that give different shapes). A `(H, D)` weight
whose leading dimension is read like a batch is a known false finding.

On by default since it reads the host: over the corpus it reports 66 sites, 60 judged true
(docs/precision.md; before, without the host facts, 14 of 40 sampled findings were). The price is
recall: a kernel launched from code the project does not show, or passed tensors whose shapes
the wrapper never reads, is not reported (466 findings before, most of them unjudged).

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

    def check_kernel(self, kernel, ctx):
        by_origin: dict[int, list[overflow.Overflow]] = {}
        for found in overflow.int32_overflows(ctx, kernel):
            by_origin.setdefault(id(found.product.origin), []).append(found)
        for overflows in by_origin.values():
            # the address into the largest tensor names the inputs that break it first
            first = min(overflows, key=lambda f: (-f.factors, f.product.product.lineno,
                                                  f.product.product.col_offset))
            product = first.product
            source = ("the program id" if ctx.call_name(product.origin) == triton.PROGRAM_ID
                      else "a loaded index")
            reach = (f"its largest value is {first.reach}" if first.reach is not None
                     else "the loaded index spans the tensor")
            more = f" (and {len(overflows) - 1} more address(es) from the same index)" if len(overflows) > 1 else ""
            yield Report(
                product.product,
                f"`{short(product.product)}` multiplies {source} by `{product.size.id}` in int32 to address "
                f"`{first.argument}` of shape {first.shape}{more}: the offset wraps once {first.condition} > 2^31; "
                f"convert the index with `.to(tl.int64)` where it is defined",
                cause=f"{kernel.name}:{ast.unparse(product.origin)}",
                facts=(Because(f"launched at {first.where}", None), Because(reach, None)),
            )
