import torch
import triton

from pkg.kernels import (even_cols_kernel, even_gather_kernel, gather_strided_kernel, odd_gather_kernel,
                         odd_half_kernel, pooled_features_kernel, row_copy_kernel)


def even_elements(x):
    flat = x.reshape(-1)
    evens = flat[::2]
    n = flat.numel()  # the storage's length: evens has cdiv(n, 2)
    out = torch.empty(n, device=x.device, dtype=x.dtype)
    even_gather_kernel[(triton.cdiv(n, 1024),)](evens, out, n, evens.stride(0), BLOCK=1024)
    return out


def odd_elements(x):
    flat = x.reshape(-1)
    odds = flat[1::2]
    n = flat.numel()  # odds has n // 2
    out = torch.empty(n, device=x.device, dtype=x.dtype)
    odd_gather_kernel[(triton.cdiv(n, 1024),)](odds, out, n, odds.stride(0), BLOCK=1024)
    return out


def odd_elements_half(x):
    flat = x.reshape(-1)
    odds = flat[1::2]
    half = triton.cdiv(flat.numel(), 2)
    out = torch.empty(half, device=x.device, dtype=x.dtype)
    odd_half_kernel[(triton.cdiv(half, 1024),)](odds, out, half, odds.stride(0), BLOCK=1024)
    return out


# --- right: the mask bounds the view's own length -------------------------------------------

def even_elements_by_view_length(x):
    flat = x.reshape(-1)
    evens = flat[::2]
    n = evens.numel()
    out = torch.empty_like(evens)
    gather_strided_kernel[(triton.cdiv(n, 1024),)](evens, out, n, evens.stride(0), BLOCK=1024)
    return out


def even_elements_by_rounded_half(x):
    flat = x.reshape(-1)
    evens = flat[0::2]
    half = (flat.numel() + 1) // 2
    out = torch.empty(half, device=x.device, dtype=x.dtype)
    gather_strided_kernel[(triton.cdiv(half, 1024),)](evens, out, half, evens.stride(0), BLOCK=1024)
    return out


def odd_elements_by_floor_half(x):
    flat = x.reshape(-1)
    odds = flat[1::2]
    half = flat.numel() // 2
    out = torch.empty(half, device=x.device, dtype=x.dtype)
    gather_strided_kernel[(triton.cdiv(half, 1024),)](odds, out, half, odds.stride(0), BLOCK=1024)
    return out


def shifted_elements(x):
    flat = x.reshape(-1)
    tail = flat[1:]  # a step-1 slice: n - 1 elements, masked by n - 1
    n = flat.numel() - 1
    out = torch.empty(n, device=x.device, dtype=x.dtype)
    gather_strided_kernel[(triton.cdiv(n, 1024),)](tail, out, n, tail.stride(0), BLOCK=1024)
    return out


def fewer_than_the_view(x):
    flat = x.reshape(-1)
    evens = flat[::2]
    n = flat.numel() // 2  # shorter than the view's cdiv(n, 2): no lane passes it
    out = torch.empty(n, device=x.device, dtype=x.dtype)
    gather_strided_kernel[(triton.cdiv(n, 1024),)](evens, out, n, evens.stride(0), BLOCK=1024)
    return out


def even_columns_copied(x):
    M, N = x.shape
    xe = x[:, ::2].contiguous()  # a contiguous copy, masked by its own width
    out = torch.empty_like(xe)
    row_copy_kernel[(M,)](xe, out, xe.shape[1], xe.stride(0), xe.stride(1), out.stride(0),
                          BLOCK_N=triton.next_power_of_2(xe.shape[1]))
    return out


def even_columns_by_cdiv(x):
    M, N = x.shape
    xe = x[:, ::2]
    n_cols = triton.cdiv(N, 2)
    out = torch.empty((M, n_cols), device=x.device, dtype=x.dtype)
    row_copy_kernel[(M,)](xe, out, n_cols, xe.stride(0), xe.stride(1), out.stride(0),
                          BLOCK_N=triton.next_power_of_2(n_cols))
    return out


def trailing_columns(x):
    M, N = x.shape
    xt = x[:, 1:]  # a step-1 slice of N - 1 columns
    out = torch.empty((M, N - 1), device=x.device, dtype=x.dtype)
    row_copy_kernel[(M,)](xt, out, N - 1, xt.stride(0), xt.stride(1), out.stride(0),
                          BLOCK_N=triton.next_power_of_2(N))
    return out


# --- wrong: the mask bounds the storage's width ----------------------------------------------

def even_columns(x):
    M, N = x.shape
    xe = x[:, ::2]
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    even_cols_kernel[(M,)](xe, out, N, xe.stride(0), xe.stride(1), out.stride(0),
                           BLOCK_N=triton.next_power_of_2(N))
    return out


def pooled_features(x, k: int = 4):
    B, T, D = x.shape
    xs = x[..., ::4]  # D // 4 rounded up features
    out = torch.empty((B, T, D), device=x.device, dtype=x.dtype)
    pooled_features_kernel[(B, T)](xs, out, D, xs.stride(0), xs.stride(1), xs.stride(2), out.stride(0),
                                   out.stride(1), BLOCK_D=triton.next_power_of_2(D))
    return out
