import triton
import triton.language as tl


@triton.jit
def grouped_copy_kernel(ptrs, strides, out_ptr, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    base = tl.load(ptrs + g).to(tl.pointer_type(tl.float32))
    stride = tl.load(strides + g)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + g * BLOCK + offs, tl.load(base + offs * stride))
