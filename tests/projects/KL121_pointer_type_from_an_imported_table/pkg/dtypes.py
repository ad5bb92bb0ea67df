import torch
import triton.language as tl

TORCH_TO_TL = {
    torch.float16: tl.float16,
    torch.bfloat16: tl.float16,  # expect: KL121
    torch.float32: tl.float32,
}


def bits_type(dtype):
    if dtype == torch.float16:
        return tl.float16
    elif dtype == torch.bfloat16:
        return tl.float16  # expect: KL121
    elif dtype == torch.float32:
        return tl.float32
    raise ValueError(dtype)
