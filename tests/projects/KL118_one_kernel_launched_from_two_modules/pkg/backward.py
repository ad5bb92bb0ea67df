import torch
import triton

from pkg.kernels import token_max_kernel, token_sum_kernel


def token_sum_grad(g):
    out = torch.empty(g.shape[1], device=g.device, dtype=torch.float32)
    grid = (triton.cdiv(g.shape[1], 256),)
    token_sum_kernel[grid](g, out, g.shape[1], N_TOKENS=g.shape[0], BLOCK=256)  # expect: KL118
    return out


def token_max(x):
    # Another kernel's parameter of the same name: another cause.
    out = torch.empty(x.shape[1], device=x.device, dtype=torch.float32)
    grid = (triton.cdiv(x.shape[1], 256),)
    token_max_kernel[grid](x, out, x.shape[1], N_TOKENS=x.shape[0], BLOCK=256)  # expect: KL118
    return out


def token_max_window(x):
    out = torch.empty(x.shape[1], device=x.device, dtype=torch.float32)
    grid = (triton.cdiv(x.shape[1], 256),)
    token_max_kernel[grid](x, out, x.shape[1], N_TOKENS=8, BLOCK=256)  # ok: KL118
    return out
