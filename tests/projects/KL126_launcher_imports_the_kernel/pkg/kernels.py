import triton
import triton.language as tl


@triton.jit
def rope_kernel(q_ptr, cos_ptr, sin_ptr, T, D: tl.constexpr, BLOCK_T: tl.constexpr):
    i_t = tl.program_id(0)
    i_bh = tl.program_id(1)
    offs_t = i_t * BLOCK_T + tl.arange(0, BLOCK_T)
    offs_d = tl.arange(0, D)
    m = offs_t < T
    q = tl.load(q_ptr + i_bh * T * D + offs_t[:, None] * D + offs_d[None, :], mask=m[:, None])
    c = tl.load(cos_ptr + offs_t[:, None] * D + offs_d[None, :], mask=m[:, None])
    tl.store(q_ptr + i_bh * T * D + offs_t[:, None] * D + offs_d[None, :], q * c, mask=m[:, None])
