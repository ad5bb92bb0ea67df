"""KL107 autotune-meta-conflict, KL108 grid-ignores-autotune, KL202 fixed-tiles-no-autotune."""
from __future__ import annotations

import textwrap

from expectations import assert_expectations

HEADER = """
import torch
import triton
import triton.language as tl
"""

AUTOTUNED = """
@triton.autotune(
    configs=[triton.Config({"BLOCK": 64}, num_warps=2), triton.Config({"BLOCK": 128}, num_warps=4)],
    key=["n"],
)
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale, mask=offs < n)
"""

GEMM_BODY = """
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :])
        b = tl.load(b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc)
"""
GEMM_SIGNATURE = (
    "def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,\n"
    "                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):"
)


def check(body: str, *codes: str) -> None:
    assert_expectations(HEADER + textwrap.dedent(body), *codes)


def gemm(decorators: str = "@triton.jit") -> str:
    return textwrap.dedent(decorators) + "\n" + GEMM_SIGNATURE + GEMM_BODY


# --- KL107 autotune-meta-conflict --------------------------------------------------------------

def test_tuned_keyword_at_launch_is_reported():
    check(AUTOTUNED + """
def run(x, n):
    y = torch.empty_like(x)
    scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, n, 2.0, BLOCK=128)  # expect: KL107
    scale_kernel[(triton.cdiv(n, 128),)](  # the finding sits on the keyword's own line
        x, y, n, 2.0,
        BLOCK=128,  # expect: KL107
    )
    return y
""", "KL107")


def test_tuned_argument_passed_positionally_is_reported():
    check(AUTOTUNED + """
def run(x, n):
    y = torch.empty_like(x)
    scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, n, 2.0, 128)  # expect: KL107
    return y
""", "KL107")


def test_configs_built_elsewhere_are_read():
    check("""
CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": 64}) for bm in (64, 128)]

def get_configs():
    return [triton.Config({"BLOCK_K": bk}, num_stages=3) for bk in (32, 64)]

@triton.autotune(configs=CONFIGS, key=["M"])
@triton.jit
def first(x_ptr, M, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK_M), tl.zeros((BLOCK_M,), tl.float32))

@triton.autotune(configs=get_configs(), key=["M"])
@triton.jit
def second(x_ptr, M, BLOCK_K: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK_K), tl.zeros((BLOCK_K,), tl.float32))

def run(x, M):
    grid = lambda META: (triton.cdiv(M, 64),)
    first[grid](x, M, BLOCK_N=64)  # expect: KL107
    second[grid](x, M, BLOCK_K=32)  # expect: KL107
""", "KL107")


def test_heuristic_parameter_passed_positionally_is_reported_but_not_by_keyword():
    # Positionally the heuristic's keyword collides (TypeError); by keyword it is replaced, and real
    # code passes the very value the heuristic computes (`USE_CACHE=cache is not None`).
    check("""
@triton.heuristics({"EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0, "USE_CACHE": lambda a: a["cache"] is not None})
@triton.jit
def copy_kernel(x_ptr, y_ptr, cache, n, BLOCK: tl.constexpr, EVEN_N: tl.constexpr, USE_CACHE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

def run(x, y, cache, n):
    copy_kernel[(triton.cdiv(n, 256),)](x, y, cache, n, 256, n % 256 == 0)  # expect: KL107
    copy_kernel[(triton.cdiv(n, 256),)](x, y, cache, n, BLOCK=256, USE_CACHE=cache is not None)
""", "KL107")


def test_autotuned_kernel_launched_with_meta_grid_and_runtime_args_only_is_not_reported():
    check(AUTOTUNED + """
@triton.jit
def fixed_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)

def run(x, n):
    y = torch.empty_like(x)
    scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, n, 2.0)
    scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x_ptr=x, y_ptr=y, n=n, scale=0.5)
    fixed_kernel[(triton.cdiv(n, 128),)](y, n, BLOCK=128)
    return y
""", "KL107")


def test_configs_that_cannot_be_read_are_not_guessed():
    check("""
from mylib import tuned_configs

@triton.autotune(configs=tuned_configs("scale"), key=["n"])
@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)

def run(x, n):
    scale_kernel[(triton.cdiv(n, 128),)](x, n, BLOCK=128)
""", "KL107")


# --- KL108 grid-ignores-autotune ---------------------------------------------------------------

def test_grid_from_host_tile_size_is_reported():
    check(AUTOTUNED + """
BLOCK = 256

def run(x, n):
    y = torch.empty_like(x)
    grid = (triton.cdiv(n, BLOCK),)
    scale_kernel[grid](x, y, n, 2.0)  # expect: KL108
    return y

def run_counted(x, n):
    block = 1024
    num_blocks = (n + block - 1) // block
    scale_kernel[(num_blocks,)](x, torch.empty_like(x), n, 2.0)  # expect: KL108

def run_argument(x, n, BLOCK=128):
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, torch.empty_like(x), n, 2.0)  # expect: KL108
""", "KL108")


def test_meta_grid_that_mixes_in_a_host_tile_size_is_reported():
    check("""
@triton.autotune(
    configs=[triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}), triton.Config({"BLOCK_M": 128, "BLOCK_N": 32})],
    key=["M", "N"],
)
@triton.jit
def tile_kernel(x_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK_M), tl.zeros((BLOCK_M,), tl.float32))

def run(x, M, N):
    BLOCK_N = 64
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, BLOCK_N))
    tile_kernel[grid](x, M, N)  # expect: KL108
""", "KL108")


def test_meta_grids_are_not_reported():
    check(AUTOTUNED + """
def grid_fn(meta):
    return (triton.cdiv(4096, meta["BLOCK"]),)

def run(x, n):
    y = torch.empty_like(x)
    scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, n, 2.0)

    def grid(meta):
        BLOCK = meta["BLOCK"]
        return (triton.cdiv(n, BLOCK),)
    scale_kernel[grid](x, y, n, 2.0)
    scale_kernel[grid_fn](x, y, n, 2.0)
    return y
""", "KL108")


def test_grid_name_rebound_for_an_earlier_plain_launch_is_read_where_used():
    check(AUTOTUNED + """
@triton.jit
def prep_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)

def run(x, n):
    BLOCK = 4096
    grid = (triton.cdiv(n, BLOCK),)
    prep_kernel[grid](x, n, BLOCK=BLOCK)

    def grid(meta): return (triton.cdiv(n, meta["BLOCK"]),)
    scale_kernel[grid](x, x, n, 2.0)
""", "KL108")


def test_grids_from_values_that_are_not_fixed_host_tiles_are_not_reported():
    check(AUTOTUNED + """
def run(x, n, num_sms):
    y = torch.empty_like(x)
    scale_kernel[(num_sms,)](x, y, n, 2.0)
    BLOCK = scale_kernel.best_config.kwargs["BLOCK"]
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, 2.0)
    return y
""", "KL108")


def test_grid_of_a_launch_that_passes_the_tuned_key_is_left_to_kl107():
    check(AUTOTUNED + """
def run(x, n):
    BLOCK = 128
    scale_kernel[(triton.cdiv(n, BLOCK),)](x, x, n, 2.0, BLOCK=BLOCK)  # expect: KL107
""", "KL107", "KL108")


# --- KL202 fixed-tiles-no-autotune -------------------------------------------------------------

def test_dot_kernel_launched_with_literal_tiles_is_reported():
    check(gemm() + """
TILE = 64

def run(a, b, c, M, N, K):
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),  # expect: KL202
                        BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), TILE, TILE, TILE // 2)  # expect: KL202
""", "KL202")


def test_tuned_or_shape_dependent_tiles_are_not_reported():
    check(gemm("""
@triton.autotune(configs=[triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64})], key=["M", "N", "K"])
@triton.jit
""") + """
from fla.ops.utils.cache import fla_cache_autotune

@fla_cache_autotune(configs=[triton.Config({}, num_warps=w) for w in (4, 8)], key=["K"])
@triton.jit
def wrapped_kernel(a_ptr, b_ptr, c_ptr, K, BK: tl.constexpr):
    offs = tl.arange(0, BK)
    tile = tl.load(a_ptr + offs[:, None] * BK + offs[None, :])
    tl.store(c_ptr + offs[:, None] * BK + offs[None, :], tl.dot(tile, tile))

@triton.jit
def plain_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pass

def run(a, b, c, M, N, K, cfg):
    matmul_kernel[lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))](
        a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0))
    wrapped_kernel[(1,)](a, b, c, K, BK=64)
    if M >= 256:
        BLOCK_M = 128
    else:
        BLOCK_M = 64
    plain_kernel[(1,)](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=64, BLOCK_K=32)
    plain_kernel[(1,)](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), **cfg)
""", "KL202")


def test_kernel_without_dot_is_not_reported():
    check("""
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale, mask=offs < n)

def run(x, n):
    scale_kernel[(triton.cdiv(n, 128),)](x, x, n, 2.0, BLOCK=128)
""", "KL202")
