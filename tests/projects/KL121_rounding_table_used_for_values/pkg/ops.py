import torch
import triton

from pkg.dtypes import ROUND_TO
from pkg.kernels import emulate_rounding_kernel, rounded_sum_kernel


def emulate_rounding(x):
    y = torch.empty_like(x)
    emulate_rounding_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), ROUND=ROUND_TO[x.dtype], BLOCK=1024)
    return y


def rounded_sum(x):
    out = torch.empty(1, dtype=torch.float32, device=x.device)
    round_to = ROUND_TO.get(x.dtype)
    rounded_sum_kernel[(1,)](x, out, x.numel(), ROUND=round_to, BLOCK=triton.next_power_of_2(x.numel()))
    return out
