import triton
import triton.language as tl


@triton.jit
def grouped_scale_kernel(src_ptrs, dst_ptrs, rows, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    group = tl.program_id(1)
    if row < tl.load(rows + group):
        src = tl.load(src_ptrs + group).to(tl.pointer_type(tl.float16))  # expect: KL101
        dst = tl.load(dst_ptrs + group).to(tl.pointer_type(tl.float16))  # expect: KL101
        for start in range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < n_cols
            x = tl.load(src + row * n_cols + cols, mask=mask, other=0.0)
            tl.store(dst + row * n_cols + cols, x * scale, mask=mask)
