import torch

from pkg.kernels import grouped_scale_kernel


def grouped_scale(groups, scale):
    """Scales every 2D tensor of ``groups`` (same width) into a new one."""
    device = groups[0].device
    outputs = [torch.empty_like(g) for g in groups]
    src_ptrs = torch.tensor([g.data_ptr() for g in groups], device=device)
    dst_addrs = []
    for out in outputs:
        dst_addrs.append(out.data_ptr())
    dst_ptrs = torch.tensor(dst_addrs, dtype=torch.int64, device=device)
    rows = torch.tensor([g.shape[0] for g in groups], dtype=torch.int32, device=device)
    grid = (max(g.shape[0] for g in groups), len(groups))
    grouped_scale_kernel[grid](src_ptrs, dst_ptrs, rows, groups[0].shape[1], scale, BLOCK=1024)
    return outputs
