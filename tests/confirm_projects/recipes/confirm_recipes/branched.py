import torch
import triton
import triton.language as tl


@triton.jit
def narrow_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    tl.store(y_ptr + row * stride + offs, tl.load(x_ptr + row * stride + offs, mask=mask), mask=mask)


@triton.jit
def wide_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * stride + offs, mask=mask)  # kernelint: KL103 here
        tl.store(y_ptr + row * stride + offs, x, mask=mask)


def copy_rows(x: torch.Tensor) -> torch.Tensor:
    x2d = x.reshape(-1, x.shape[-1])
    n_rows, n_cols = x2d.shape
    y = torch.empty_like(x2d)
    if n_cols <= 1024:
        narrow_kernel[(n_rows,)](x2d, y, x2d.stride(0), n_cols, BLOCK=triton.next_power_of_2(n_cols))
    else:
        wide_kernel[(n_rows,)](x2d, y, x2d.stride(0), n_cols, BLOCK=1024)
    return y
