"""Pointer-table grouped GEMM: each group's pointers, leading dimensions and sizes are read from
device tables. The A and B tiles are loaded through tensor descriptors (TMA) built in the kernel
from the loaded pointers and strides."""
import torch
import triton
import triton.language as tl

_TL_DTYPES = {torch.float16: tl.float16, torch.bfloat16: tl.bfloat16}


@triton.jit
def grouped_gemm_kernel(
    ptrs, lds, sizes,
    DTYPE: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    g = tl.program_id(1)
    M = tl.load(sizes + g * 3)
    N = tl.load(sizes + g * 3 + 1)
    K = tl.load(sizes + g * 3 + 2)
    a_ptr = tl.load(ptrs + g * 3).to(tl.pointer_type(DTYPE))
    b_ptr = tl.load(ptrs + g * 3 + 1).to(tl.pointer_type(DTYPE))
    c_ptr = tl.load(ptrs + g * 3 + 2).to(tl.pointer_type(DTYPE))
    lda = tl.load(lds + g * 3)
    ldb = tl.load(lds + g * 3 + 1)
    ldc = tl.load(lds + g * 3 + 2)

    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group_id = pid // (GROUP_M * num_pid_n)
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % (GROUP_M * num_pid_n)) % group_size_m
    pid_n = (pid % (GROUP_M * num_pid_n)) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[lda, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[ldb, 1], block_shape=[BLOCK_K, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k])
        b = b_desc.load([k, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * ldc + offs_n[None, :], acc.to(DTYPE), mask=c_mask)


def run(a, b):
    """a: (G, M, K), b: (G, K, N); returns the G products, launched through pointer tables."""
    groups, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((groups, M, N), dtype=a.dtype, device=a.device)
    table = [(a[g], b[g], c[g]) for g in range(groups)]
    ptrs = torch.tensor([[t.data_ptr() for t in row] for row in table], dtype=torch.int64, device=a.device)
    lds = torch.tensor([[t.stride(0) for t in row] for row in table], dtype=torch.int64, device=a.device)
    sizes = torch.tensor([[M, N, K]] * groups, dtype=torch.int32, device=a.device)
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device=a.device))
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128), groups)
    grouped_gemm_kernel[grid](
        ptrs, lds, sizes, DTYPE=_TL_DTYPES[a.dtype], BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8,
        num_warps=8, num_stages=3,
    )
    return c
