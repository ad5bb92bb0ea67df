import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n).to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + offs, (x * 2.0).to(tl.float16), mask=offs < n)  # expect: KL122


@triton.jit
def shift_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n).to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + offs, (x + 1.0).to(tl.float16), mask=offs < n)  # ok: KL122


@triton.jit
def scale_generic_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n).to(y_ptr.dtype.element_ty)
    tl.store(y_ptr + offs, x * 2, mask=offs < n)
