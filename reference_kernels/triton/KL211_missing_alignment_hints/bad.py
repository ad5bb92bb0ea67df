"""Multi-tensor axpy (the `_foreach_` style update of an optimizer): out[i] = y[i] + alpha * x[i]
for a list of tensors, launched once through device tables of pointers and sizes. The kernel uses
the loaded pointers and size as they are (bad), or tells the compiler they are multiples of 16
with `tl.multiple_of` (good), which the host guarantees."""
import torch
import triton
import triton.language as tl

_TL_DTYPES = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16, torch.float32: tl.float32}
BLOCK = 2048


@triton.jit
def multi_tensor_axpy_kernel(ptrs, sizes, alpha, DTYPE: tl.constexpr, BLOCK: tl.constexpr):
    t = tl.program_id(1)
    x_ptr = tl.load(ptrs + t * 3).to(tl.pointer_type(DTYPE))  # expect: KL211
    y_ptr = tl.load(ptrs + t * 3 + 1).to(tl.pointer_type(DTYPE))  # expect: KL211
    out_ptr = tl.load(ptrs + t * 3 + 2).to(tl.pointer_type(DTYPE))  # expect: KL211
    n = tl.load(sizes + t)
    for start in range(tl.program_id(0) * BLOCK, n, tl.num_programs(0) * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
        tl.store(out_ptr + offs, (y + alpha * x).to(DTYPE), mask=mask)


def run(xs, ys, alpha):
    outs = [torch.empty_like(y) for y in ys]
    assert all(x.numel() % 16 == 0 and x.data_ptr() % 16 == 0 for x in xs + ys + outs)
    ptrs = torch.tensor([[x.data_ptr(), y.data_ptr(), o.data_ptr()] for x, y, o in zip(xs, ys, outs)],
                        dtype=torch.int64, device=xs[0].device)
    sizes = torch.tensor([x.numel() for x in xs], dtype=torch.int32, device=xs[0].device)
    grid = (min(triton.cdiv(max(x.numel() for x in xs), BLOCK), 64), len(xs))
    multi_tensor_axpy_kernel[grid](ptrs, sizes, alpha, DTYPE=_TL_DTYPES[xs[0].dtype], BLOCK=BLOCK)
    return outs
