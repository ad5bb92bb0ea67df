import triton
import triton.language as tl
from triton.testing import do_bench


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
    exact = tl.dot(a, b, allow_tf32=False)
    fast = tl.dot(a, b, allow_tf32=True)
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], exact + fast)


def bench(fn):
    return do_bench(fn, warmup=25, rep=100, fast_flush=True)
