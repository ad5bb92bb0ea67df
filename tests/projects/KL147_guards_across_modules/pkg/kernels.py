import torch
import triton
import triton.language as tl

from .utils import device_context


@triton.jit
def geglu_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, (0.5 * a * (1 + tl.erf(a * 0.7071067811865476))).to(b.dtype) * b, mask=mask)


@triton.jit
def swiglu_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(c_ptr + offs, (a * tl.sigmoid(a)).to(b.dtype) * b, mask=mask)


def geglu(a, b):
    c = torch.empty_like(a)
    with device_context(a.device):
        geglu_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, c, a.numel(), BLOCK=1024)  # ok: KL147
    return c


def swiglu(a, b):
    # the launch the guard was not added to
    c = torch.empty_like(a)
    swiglu_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, c, a.numel(), BLOCK=1024)  # expect: KL147
    return c


def swiglu_for_layers(a, b):
    # called only from layers.py, inside `with torch.cuda.device(...)`
    c = torch.empty_like(a)
    swiglu_kernel[(triton.cdiv(a.numel(), 1024),)](a, b, c, a.numel(), BLOCK=1024)  # ok: KL147
    return c
