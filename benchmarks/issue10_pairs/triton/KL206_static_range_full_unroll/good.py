"""Invert many unit lower-triangular BS x BS blocks, (I + A)^-1 with A strictly lower (the
`solve_tril` step of chunked linear attention), by forward substitution row by row on the
register tile. The row loop is `tl.static_range` (fully unrolled, bad) or `range` (a real loop,
good)."""
import torch
import triton
import triton.language as tl


@triton.jit
def tril_inverse_kernel(a_ptr, out_ptr, BS: tl.constexpr):
    block = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BS)
    ptrs = block * BS * BS + offs[:, None] * BS + offs[None, :]
    a = tl.load(a_ptr + ptrs).to(tl.float32)
    inv = -tl.where(offs[:, None] > offs[None, :], a, 0.0)
    for i in range(1, BS):
        is_row = offs == i
        row = tl.sum(tl.where(is_row[:, None], inv, 0.0), axis=0)
        row = row + tl.sum(row[:, None] * inv, axis=0)
        inv = tl.where(is_row[:, None], row[None, :], inv)
    inv = inv + tl.where(offs[:, None] == offs[None, :], 1.0, 0.0)
    tl.store(out_ptr + ptrs, inv.to(out_ptr.dtype.element_ty))


def run(a):
    blocks, bs, _ = a.shape
    out = torch.empty_like(a)
    tril_inverse_kernel[(blocks,)](a, out, BS=bs)
    return out
