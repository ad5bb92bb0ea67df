import torch
import triton
import triton.language as tl


@triton.jit
def shift_kernel(x_ptr, y_ptr, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = n_rows - 1 - pid
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask)  # kernelint: KL103 here
    tl.store(y_ptr + row * stride + offs, x + 1, mask=mask)


def shift(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    shift_kernel[(n_rows,)](x, y, x.stride(0), n_rows, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return y
