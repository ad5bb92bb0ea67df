import triton
import triton.language as tl


@triton.jit
def grouped_matmul_kernel(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_sizes, g_lds, group_size,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    tile = tl.program_id(0)
    for g in range(group_size):
        gm = tl.load(group_sizes + g * 3)
        gn = tl.load(group_sizes + g * 3 + 1)
        gk = tl.load(group_sizes + g * 3 + 2)
        lda = tl.load(g_lds + g * 3)
        ldb = tl.load(g_lds + g * 3 + 1)
        ldc = tl.load(g_lds + g * 3 + 2)
        a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))  # ok: KL101
        b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))  # ok: KL101
        c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))  # ok: KL101
        offs_m = (tile % tl.cdiv(gm, BLOCK_M)) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = (tile // tl.cdiv(gm, BLOCK_M)) * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, gk, BLOCK_K):
            a = tl.load(a_ptr + offs_m[:, None] * lda + (k + offs_k)[None, :])
            b = tl.load(b_ptr + (k + offs_k)[:, None] * ldb + offs_n[None, :])
            acc += tl.dot(a, b)
        tl.store(c_ptr + offs_m[:, None] * ldc + offs_n[None, :], acc.to(tl.float16),
                 mask=(offs_m[:, None] < gm) & (offs_n[None, :] < gn))
