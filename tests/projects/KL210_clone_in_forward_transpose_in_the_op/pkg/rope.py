import torch
import triton
import triton.language as tl


@triton.jit
def rope_kernel(q_ptr, cos_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    q = tl.load(q_ptr + offs, mask=offs < n)
    c = tl.load(cos_ptr + offs, mask=offs < n)
    tl.store(q_ptr + offs, q * c, mask=offs < n)


def rope_forward(q, cos):
    q = q.transpose(1, 2).contiguous()
    rope_kernel[(triton.cdiv(q.numel(), 1024),)](q, cos, q.numel(), BLOCK=1024)
    return q.transpose(1, 2)


def rope_forward_in_place(q, cos):
    rope_kernel[(triton.cdiv(q.numel(), 1024),)](q, cos, q.numel(), BLOCK=1024)
    return q


class RotaryFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, cos):
        q = q.clone()  # expect: KL210
        return rope_forward(q, cos)


class InPlaceRotaryFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, cos):
        q = q.clone()  # ok: KL210
        return rope_forward_in_place(q, cos)
