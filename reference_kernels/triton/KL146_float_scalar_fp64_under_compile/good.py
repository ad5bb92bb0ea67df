"""SwiGLU forward (Liger-Kernel's, before PR #1330; fp16 here) launched from a `torch.compile`d
function: the gate multiplier is a plain float kernel argument. Eager Triton passes it as fp32;
Inductor passes it as fp64, and `tl.cast(gate_multiplier, tl.float32)` keeps the SiLU chain in fp32 on both paths."""
import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_forward_kernel(a_ptr, b_ptr, c_ptr, stride, gate_multiplier, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * stride + cols, mask=mask, other=0).to(tl.float32) * tl.cast(gate_multiplier, tl.float32)
    b = tl.load(b_ptr + row * stride + cols, mask=mask, other=0)
    c = (a * tl.sigmoid(a)).to(b.dtype) * b
    tl.store(c_ptr + row * stride + cols, c, mask=mask)


@torch.compile(dynamic=False)
def swiglu(a, b, gate_multiplier: float):
    rows, n_cols = a.shape
    c = torch.empty_like(a)
    swiglu_forward_kernel[(rows,)](a, b, c, a.stride(0), gate_multiplier, n_cols,
                                   BLOCK_SIZE=triton.next_power_of_2(n_cols), num_warps=8)
    return c


def run(a, b, gate_multiplier: float):
    return swiglu(a, b, gate_multiplier)
