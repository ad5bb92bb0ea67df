import triton
import triton.language as tl


@triton.jit
def window_kernel(x_ptr, out_ptr, n, start, end, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    in_window = (offs >= start) & (offs < end)
    keep = (~(offs == start)) | in_window
    x = tl.load(x_ptr + offs, mask=in_window & keep, other=0.0)
    tl.store(out_ptr + offs, x, mask=offs < n)
