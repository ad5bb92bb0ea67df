import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    x_desc = tl._experimental_make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    y_desc = tl._experimental_make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    offs = [tl.program_id(0) * BM, tl.program_id(1) * BN]
    y_desc.store(offs, x_desc.load(offs))


def use_torch_allocator():
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
