"""Non-ASCII text before the fix on the same line: edits count UTF-8 bytes, as ast does."""
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tag = "µ-ünï"; cdf = 0.5 * (1.0 + tl.math.erf(x * 0.7071067811865476))  # ½ (1 + erf(x/√2))
    tl.store(y_ptr + offs, x * cdf, mask=offs < n)
