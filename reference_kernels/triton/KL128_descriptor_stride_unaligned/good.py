"""Row sums of a [M, K] tensor read through an in-kernel tensor descriptor, one program per block
of rows. The rows are padded to a multiple of 8 elements (16 bytes for bf16) first."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, M, K, stride_row, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    desc = tl.make_tensor_descriptor(x_ptr, shape=[M, K], strides=[stride_row, 1],
                                     block_shape=[BLOCK_M, BLOCK_K])
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += tl.sum(desc.load([pid * BLOCK_M, k]).to(tl.float32), axis=1)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(out_ptr + rows, acc, mask=rows < M)


def _alloc(size, alignment, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


def run(x):
    """Row sums of dense 2D ``x`` in fp32."""
    triton.set_allocator(_alloc)
    M, K = x.shape
    K_pad = triton.cdiv(K, 8) * 8
    x = torch.nn.functional.pad(x, (0, K_pad - K))
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    row_sum_kernel[(triton.cdiv(M, 64),)](x, out, M, K, K_pad, BLOCK_M=64, BLOCK_K=64)
    return out
