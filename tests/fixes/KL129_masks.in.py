import triton
import triton.language as tl


@triton.jit
def window_kernel(x_ptr, out_ptr, n, start, end, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_window = offs >= start and offs < end
    keep = not (offs == start) or in_window
    x = tl.load(x_ptr + offs, mask=in_window and keep, other=0.0)
    tl.store(out_ptr + offs, x, mask=offs < n)
