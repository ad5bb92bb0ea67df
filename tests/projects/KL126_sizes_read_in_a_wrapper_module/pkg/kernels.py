import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, T, D: tl.constexpr, BLOCK_T: tl.constexpr):
    i_t = tl.program_id(0)
    i_bh = tl.program_id(1)
    offs_t = i_t * BLOCK_T + tl.arange(0, BLOCK_T)
    offs_d = tl.arange(0, D)
    m = offs_t < T
    x = tl.load(x_ptr + i_bh * T * D + offs_t[:, None] * D + offs_d[None, :], mask=m[:, None])
    tl.store(x_ptr + i_bh * T * D + offs_t[:, None] * D + offs_d[None, :], x * 2, mask=m[:, None])
