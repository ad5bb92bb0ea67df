"""Row kernels whose row offset is an int32 program id times a run-time stride; the tensors
they address are allocated and shaped in ``pkg/ops.py``."""
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


@triton.jit
def token_scale_kernel(q_ptr, out_ptr, stride, row_len, BLOCK: tl.constexpr):
    token = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    q = tl.load(q_ptr + token * stride + cols, mask=cols < row_len, other=0.0)  # ok: KL103
    tl.store(out_ptr + token * stride + cols, q * 2.0, mask=cols < row_len)  # ok: KL103
