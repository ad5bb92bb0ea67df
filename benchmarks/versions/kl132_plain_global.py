"""KL132's plain form: `SCALE = 3` read in a kernel. Triton 2.3.1 reads it; 3.0.0 and later
refuse it (FlagGems PR #118). Compiled on the CPU by compile_on_cpu.py under each release."""
import triton
import triton.language as tl

SCALE = 3


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)
