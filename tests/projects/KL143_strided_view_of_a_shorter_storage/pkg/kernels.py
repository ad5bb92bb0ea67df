# Kernels that address a tensor through the stride the launch passes. A strided view
# (x[::2], x[1::2], x[:, ::2], x[..., ::k]) holds fewer elements than the storage it views:
# a mask by the storage's length reads past the view (triton-lang/triton#10336). The launches,
# right and wrong, are in pkg/ops.py.
import triton
import triton.language as tl


@triton.jit
def gather_strided_kernel(src_ptr, out_ptr, n, stride_src, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(src_ptr + offs * stride_src, mask=offs < n, other=0.0)  # ok: KL143
    tl.store(out_ptr + offs, v, mask=offs < n)  # ok: KL143


@triton.jit
def even_gather_kernel(src_ptr, out_ptr, n, stride_src, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(src_ptr + offs * stride_src, mask=offs < n, other=0.0)  # expect: KL143
    tl.store(out_ptr + offs, v, mask=offs < n)  # ok: KL143


@triton.jit
def odd_gather_kernel(src_ptr, out_ptr, n, stride_src, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(src_ptr + offs * stride_src, mask=offs < n, other=0.0)  # expect: KL143
    tl.store(out_ptr + offs, v, mask=offs < n)  # ok: KL143


@triton.jit
def odd_half_kernel(src_ptr, out_ptr, n, stride_src, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    # x[1::2] has n // 2 elements; a mask by cdiv(n, 2) reads one past it when n is odd only:
    # never shorter than the view, longer at n = 3
    v = tl.load(src_ptr + offs * stride_src, mask=offs < n, other=0.0)  # expect: KL143
    tl.store(out_ptr + offs, v, mask=offs < n)  # ok: KL143


@triton.jit
def row_copy_kernel(x_ptr, out_ptr, n_cols, stride_xm, stride_xn, stride_om, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    v = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=cols < n_cols, other=0.0)  # ok: KL143
    tl.store(out_ptr + row * stride_om + cols, v, mask=cols < n_cols)  # ok: KL143


@triton.jit
def even_cols_kernel(x_ptr, out_ptr, n_cols, stride_xm, stride_xn, stride_om, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    v = tl.load(x_ptr + row * stride_xm + cols * stride_xn, mask=cols < n_cols, other=0.0)  # expect: KL143
    tl.store(out_ptr + row * stride_om + cols, v, mask=cols < n_cols)  # ok: KL143


@triton.jit
def pooled_features_kernel(x_ptr, out_ptr, D, stride_xb, stride_xt, stride_xd, stride_ob, stride_ot,
                           BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    t = tl.program_id(1)
    d = tl.arange(0, BLOCK_D)
    v = tl.load(x_ptr + b * stride_xb + t * stride_xt + d * stride_xd, mask=d < D, other=0.0)  # expect: KL143
    tl.store(out_ptr + b * stride_ob + t * stride_ot + d, v, mask=d < D)  # ok: KL143
