import triton
import triton.language as tl


@triton.jit
def rms_scale_kernel(x_ptr, out_ptr, N, stride_x, stride_out, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * stride_x + cols, mask=cols < N, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(out_ptr + row * stride_out + cols, x * rstd, mask=cols < N)
