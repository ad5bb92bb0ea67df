import triton
import triton.language as tl


@triton.jit
def decay_kernel(g_ptr, out_ptr, T, BT: tl.constexpr):
    i_t = tl.program_id(0)
    offs = i_t * BT + tl.arange(0, BT)
    g = tl.load(g_ptr + offs, mask=offs < T, other=0.0)
    tl.store(out_ptr + offs, tl.exp(g), mask=offs < T)  # ok: KL114
