import triton
import triton.language as tl


@triton.jit
def emulate_rounding_kernel(x_ptr, y_ptr, n, ROUND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if ROUND == tl.bfloat16:
        x = x * 1.0
    y = x.to(ROUND).to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + offs, y, mask=offs < n)


@triton.jit
def rounded_sum_kernel(x_ptr, out_ptr, n, ROUND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=ROUND)
    acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(ROUND)
    tl.store(out_ptr, tl.sum(tl.cast(acc, tl.float32), axis=0))
