import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, y_ptr, rstd_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    rstd = tl.load(rstd_ptr + row)
    y = tl.exp(x) * tl.sqrt(rstd)  # expect: KL114
    tl.store(y_ptr + row * n_cols + offs, y, mask=mask)


def rms_norm_forward(x):
    y = torch.empty_like(x)
    rstd = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    rms_norm_kernel[(x.shape[0],)](x, y, rstd, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return y


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return rms_norm_forward(x)
