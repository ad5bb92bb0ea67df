import torch

from pkg.kernels import grouped_copy_kernel


def grouped_copy(tensors, out, block=128):
    ptrs = torch.tensor([t.data_ptr() for t in tensors], dtype=torch.int64, device=out.device)
    strides = torch.tensor([t.stride(0) for t in tensors], dtype=torch.int32, device=out.device)  # expect: KL102
    grouped_copy_kernel[(len(tensors),)](ptrs, strides, out, BLOCK=block)


def grouped_copy_wide(tensors, out, block=128):
    ptrs = torch.tensor([t.data_ptr() for t in tensors], dtype=torch.int64, device=out.device)
    strides = torch.tensor([t.stride(0) for t in tensors], dtype=torch.int64, device=out.device)  # ok: KL102
    grouped_copy_kernel[(len(tensors),)](ptrs, strides, out, BLOCK=block)
