import triton
import triton.language as tl


@triton.jit
def _accumulate_tiles(acc, a_ptrs, b_ptrs, stride_ak, stride_bk, NUM_TILES: tl.constexpr, BLOCK_K: tl.constexpr):
    for k in tl.static_range(1, NUM_TILES):  # expect: KL206
        a = tl.load(a_ptrs + k * BLOCK_K * stride_ak)
        b = tl.load(b_ptrs + k * BLOCK_K * stride_bk)
        acc = tl.dot(a, b, acc)
    return acc


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                  NUM_TILES: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
    acc = _accumulate_tiles(acc, a_ptrs, b_ptrs, stride_ak, stride_bk, NUM_TILES, BLOCK_K)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)


@triton.jit
def small_matmul_kernel(a_ptr, b_ptr, c_ptr, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                        NUM_TILES: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.static_range(NUM_TILES):  # ok: KL206
        acc = tl.dot(tl.load(a_ptrs + k * BLOCK_K * stride_ak), tl.load(b_ptrs + k * BLOCK_K * stride_bk), acc)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc)
