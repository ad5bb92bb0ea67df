import torch
import triton

from pkg.dtypes import TORCH_TO_TL, bits_type
from pkg.kernels import grouped_row_sum_kernel, sign_bits_kernel


def grouped_row_sums(groups):
    device = groups[0].device
    ptrs = torch.tensor([g.data_ptr() for g in groups], device=device)
    rows = torch.tensor([g.shape[0] for g in groups], dtype=torch.int32, device=device)
    out = torch.zeros(len(groups) * 4096, dtype=torch.float32, device=device)
    n_cols = groups[0].shape[1]
    grid = (max(g.shape[0] for g in groups), len(groups))
    grouped_row_sum_kernel[grid](ptrs, rows, out, n_cols, DTYPE=TORCH_TO_TL[groups[0].dtype],
                                 BLOCK=triton.next_power_of_2(n_cols))
    return out


def sign_bits(x):
    out = torch.empty(x.shape, dtype=torch.int8, device=x.device)
    sign_bits_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BITS=bits_type(x.dtype), BLOCK=1024)
    return out
