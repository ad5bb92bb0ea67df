import triton
import triton.language as tl


@triton.jit
def token_sum_kernel(x_ptr, out_ptr, n_cols, N_TOKENS: tl.constexpr, BLOCK: tl.constexpr):
    col = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for t in range(N_TOKENS):
        acc += tl.load(x_ptr + t * n_cols + col, mask=col < n_cols, other=0.0)
    tl.store(out_ptr + col, acc, mask=col < n_cols)


@triton.jit
def token_max_kernel(x_ptr, out_ptr, n_cols, N_TOKENS: tl.constexpr, BLOCK: tl.constexpr):
    col = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for t in range(N_TOKENS):
        acc = tl.maximum(acc, tl.load(x_ptr + t * n_cols + col, mask=col < n_cols, other=float("-inf")))
    tl.store(out_ptr + col, acc, mask=col < n_cols)
