"""Grouped row sums through pointer tables (grouped GEMM / MoE addressing): the pointers' element
type comes from a torch-to-Triton dtype table."""
import torch
import triton
import triton.language as tl

_DTYPES = {torch.float16: tl.float16, torch.bfloat16: tl.float16, torch.float32: tl.float32}  # expect: KL121


@triton.jit
def grouped_row_sum_kernel(ptrs, strides, rows, out_starts, out_ptr, K,
                           DTYPE: tl.constexpr, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    group = tl.program_id(1)
    n_rows = tl.load(rows + group)
    if row < n_rows:
        base = tl.load(ptrs + group).to(tl.pointer_type(DTYPE))
        stride = tl.load(strides + group)
        row_ptr = base + row * stride
        acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            cols = k + tl.arange(0, BLOCK_K)
            mask = cols < K
            acc += tl.load(row_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        out_start = tl.load(out_starts + group)
        tl.store(out_ptr + out_start + row, tl.sum(acc, axis=0))


def run(groups):
    """Row sums of every 2D tensor in ``groups`` (same dtype and width), concatenated, in fp32."""
    device = groups[0].device
    K = groups[0].shape[1]
    row_counts = [a.shape[0] for a in groups]
    starts = [sum(row_counts[:i]) for i in range(len(groups))]
    ptrs = torch.tensor([a.data_ptr() for a in groups], dtype=torch.int64, device=device)
    strides = torch.tensor([a.stride(0) for a in groups], dtype=torch.int64, device=device)
    rows = torch.tensor(row_counts, dtype=torch.int32, device=device)
    out_starts = torch.tensor(starts, dtype=torch.int32, device=device)
    out = torch.empty(sum(row_counts), dtype=torch.float32, device=device)
    grid = (max(row_counts), len(groups))
    grouped_row_sum_kernel[grid](ptrs, strides, rows, out_starts, out, K,
                                 DTYPE=_DTYPES[groups[0].dtype], BLOCK_K=1024)
    return out
