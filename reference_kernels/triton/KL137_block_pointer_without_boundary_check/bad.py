"""Column sums of an (M, N) matrix in blocks of 64 rows read through a block pointer that checks
the columns but not the rows. The matrix is the first M rows of a larger buffer, like a slice of
a batch, so the last block's rows past M read the next rows of the buffer into the sums."""
import torch
import triton
import triton.language as tl


@triton.jit
def column_sum_kernel(x_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    # block pointers were removed in Triton 3.9; the pair runs on the H200's Triton 3.6.0
    p_x = tl.make_block_ptr(x_ptr, (M, N), (stride, 1), (pid * BM, 0), (BM, BN), (1, 0))  # noqa: KL131
    x = tl.load(p_x, boundary_check=(1,), padding_option="zero")  # expect: KL137
    cols = tl.arange(0, BN)
    tl.atomic_add(out_ptr + cols, tl.sum(x.to(tl.float32), axis=0), mask=cols < N)


def run(x):
    M, N = x.shape
    out = torch.zeros(N, dtype=torch.float32, device=x.device)
    column_sum_kernel[(triton.cdiv(M, 64),)](x, out, M, N, x.stride(0), BM=64, BN=triton.next_power_of_2(N))
    return out
