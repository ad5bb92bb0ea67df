"""KL132's annotated form: `SCALE: tl.constexpr = 3` read in a kernel. Triton 3.0-3.2 look the
name up in the module's __annotations__ and accept it (as a plain value); 3.3.0 and later refuse it
(triton PR #5961). Compiled on the CPU by compile_on_cpu.py under each release."""
import triton
import triton.language as tl

SCALE: tl.constexpr = 3


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)
