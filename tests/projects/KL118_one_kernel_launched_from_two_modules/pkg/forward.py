import torch
import triton

from pkg.kernels import token_sum_kernel


def token_sum(x):
    # token_sum_kernel's N_TOKENS fed a runtime size here and in pkg/backward.py: one cause.
    out = torch.empty(x.shape[1], device=x.device, dtype=torch.float32)
    grid = (triton.cdiv(x.shape[1], 256),)
    token_sum_kernel[grid](x, out, x.shape[1], N_TOKENS=x.shape[0], BLOCK=256)  # expect: KL118
    return out
