"""Rotary position embedding applied in place on (batch, seq, heads, head_dim) rows. The two
halves of head_dim are reached through a 5D view that splits head_dim into (2, head_dim // 2)
and the stride of its size-2 axis (bad), or by adding head_dim // 2 to the offsets (good)."""
import torch
import triton
import triton.language as tl


@triton.jit
def rope_kernel(
    q_ptr, cos_ptr, sin_ptr, seq_len, row_stride, head_stride, half_stride,
    N_HEADS: tl.constexpr, HALF: tl.constexpr, BLOCK_H: tl.constexpr,
):
    row = tl.program_id(0)
    pos = row % seq_len
    heads = tl.arange(0, BLOCK_H)
    dims = tl.arange(0, HALF)
    mask = heads[:, None] < N_HEADS
    first = q_ptr + row.to(tl.int64) * row_stride + heads[:, None] * head_stride + dims[None, :]
    second = first + half_stride
    cos = tl.load(cos_ptr + pos * HALF + dims)[None, :]
    sin = tl.load(sin_ptr + pos * HALF + dims)[None, :]
    x1 = tl.load(first, mask=mask).to(tl.float32)
    x2 = tl.load(second, mask=mask).to(tl.float32)
    tl.store(first, (x1 * cos - x2 * sin).to(q_ptr.dtype.element_ty), mask=mask)
    tl.store(second, (x2 * cos + x1 * sin).to(q_ptr.dtype.element_ty), mask=mask)


def run(q, cos, sin):
    batch, seq_len, heads, head_dim = q.shape
    q = q.contiguous()
    halves = q.reshape(batch, seq_len, heads, 2, head_dim // 2)  # expect: KL208
    rope_kernel[(batch * seq_len,)](
        halves, cos, sin, seq_len, halves.stride(1), halves.stride(2), halves.stride(3),
        N_HEADS=heads, HALF=head_dim // 2, BLOCK_H=triton.next_power_of_2(heads),
    )
    return q
