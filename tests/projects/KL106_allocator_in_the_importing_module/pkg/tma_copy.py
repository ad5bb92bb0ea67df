import triton
import triton.language as tl


@triton.jit
def tma_copy(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])  # ok: KL106
    y_desc = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    y_desc.store([0, 0], x_desc.load([0, 0]))
