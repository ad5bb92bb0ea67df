"""Per-row sums of a (rows, cols) view whose rows are ``stride`` elements apart (one projection
sliced out of a wider fused buffer). One program per row; the row offset ``row * stride`` is
computed from the int32 program id."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_ptr = x_ptr + row * stride  # expect: KL103
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(row_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def run(x):
    rows, cols = x.shape
    out = torch.empty(rows, device=x.device, dtype=torch.float32)
    row_sum_kernel[(rows,)](x, out, x.stride(0), cols, BLOCK=1024)
    return out
