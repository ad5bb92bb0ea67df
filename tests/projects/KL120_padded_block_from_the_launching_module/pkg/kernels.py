"""Row kernels over `tl.arange(0, BLOCK)` without a mask; the block each launch passes is
chosen in ``pkg/ops.py``."""
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, y_ptr, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols)  # expect: KL120
    tl.store(y_ptr + row * n_cols + cols, x * scale, mask=cols < n_cols)


@triton.jit
def row_shift_kernel(x_ptr, y_ptr, n_cols, shift, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols)  # ok: KL120
    tl.store(y_ptr + row * n_cols + cols, x + shift, mask=cols < n_cols)
