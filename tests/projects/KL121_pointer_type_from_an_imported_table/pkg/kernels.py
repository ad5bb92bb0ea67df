import triton
import triton.language as tl


@triton.jit
def grouped_row_sum_kernel(ptrs, rows, out_ptr, n_cols, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    group = tl.program_id(1)
    if row < tl.load(rows + group):
        base = tl.load(ptrs + group).to(tl.pointer_type(DTYPE))
        cols = tl.arange(0, BLOCK)
        x = tl.load(base + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        tl.store(out_ptr + group * 4096 + row, tl.sum(x.to(tl.float32), axis=0))


@triton.jit
def sign_bits_kernel(x_ptr, out_ptr, n, BITS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    bits = x.to(BITS, bitcast=True)
    tl.store(out_ptr + offs, (bits < 0).to(tl.int8), mask=offs < n)
