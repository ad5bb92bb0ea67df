"""Grouped GEMM (a mixture-of-experts layer): group g multiplies its rows of A by its own B[g].
Each program owns one BLOCK_M row tile of the concatenated A and must find its group from the
per-group tile offsets: by scanning every group (bad) or by a binary search (good)."""
import torch
import triton
import triton.language as tl


@triton.jit
def grouped_matmul_kernel(
    a_ptr, b_ptr, c_ptr, row_starts_ptr, tile_starts_ptr, num_groups, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    tile = tl.program_id(0)
    group = 0
    high = num_groups - 1
    while group < high:
        middle = (group + high + 1) // 2
        if tl.load(tile_starts_ptr + middle) <= tile:
            group = middle
        else:
            high = middle - 1
    row_start = tl.load(row_starts_ptr + group)
    row_end = tl.load(row_starts_ptr + group + 1)
    rows = row_start + (tile - tl.load(tile_starts_ptr + group)) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rows[:, None].to(tl.int64) * K + offs_k[None, :]
    b_ptrs = b_ptr + group.to(tl.int64) * K * N + offs_k[:, None] * N + cols[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=rows[:, None] < row_end, other=0.0)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    c_ptrs = c_ptr + rows[:, None].to(tl.int64) * N + cols[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=rows[:, None] < row_end)


def run(a, b, row_starts, tile_starts, total_tiles):
    num_groups, K, N = b.shape
    c = torch.empty((a.shape[0], N), dtype=a.dtype, device=a.device)
    grid = (total_tiles, triton.cdiv(N, 128))
    grouped_matmul_kernel[grid](a, b, c, row_starts, tile_starts, num_groups, N, K,
                                BLOCK_M=64, BLOCK_N=128, BLOCK_K=64, num_warps=4, num_stages=3)
    return c
