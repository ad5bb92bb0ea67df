"""Does a file's check cost grow linearly? Times the default rules, in one process, on generated
files: one with N kernels (a row softmax and a K-loop GEMM, each with its launching wrapper) and
one kernel of L lines (a load, an exp and a store per pair of lines). Prints CPU seconds per size
and the ratio of the largest size's cost per unit to the smallest's (1.0 is linear).

    python benchmarks/growth.py [--kernels 200 400 800] [--lines 1000 2000 4000]
"""
from __future__ import annotations

import argparse
import gc
import time

from kernelint import engine
from kernelint.rules import all_rules

HEADER = "import torch\nimport triton\nimport triton.language as tl\n"

PAIR = '''

@triton.jit
def softmax_{i}(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * stride + offs, e / tl.sum(e, axis=0), mask=mask)


def run_softmax_{i}(x):
    y = torch.empty_like(x)
    softmax_{i}[(x.shape[0],)](x, y, x.stride(0), x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
    return y


@triton.jit
def gemm_{i}(a_ptr, b_ptr, c_ptr, M, N, K, sa, sb, sc, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sa + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sb + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * sc + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def run_gemm_{i}(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    gemm_{i}[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=64, BN=64, BK=32)
    return c
'''


def many_kernels(count: int) -> str:
    return HEADER + "".join(PAIR.format(i=i) for i in range(count // 2))


def long_kernel(lines: int) -> str:
    body = "".join(f"    v{i} = tl.load(x_ptr + offs + {i} * n, mask=mask)\n"
                   f"    tl.store(y_ptr + offs + {i} * n, tl.exp(v{i}), mask=mask)\n" for i in range(lines // 2))
    return HEADER + ("\n@triton.jit\ndef long_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
                     "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    mask = offs < n\n" + body)


def cpu_seconds(source: str, options: engine.Options) -> float:
    """As the runner checks a file: the collector paused during the check, then run over the
    young generation."""
    gc.collect()  # earlier sizes' garbage is not this size's cost
    gc.disable()
    start = time.process_time()
    engine.check_source("generated.py", source, options)
    gc.collect(0)
    elapsed = time.process_time() - start
    gc.enable()
    return elapsed


def report(label: str, sizes: list[int], make, options: engine.Options) -> None:
    costs = [cpu_seconds(make(size), options) for size in sizes]
    per_unit = [cost / size for cost, size in zip(costs, sizes)]
    rows = ", ".join(f"{size}: {cost:.2f} s" for size, cost in zip(sizes, costs))
    print(f"{label}: {rows}; cost per unit, largest / smallest: {per_unit[-1] / per_unit[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, nargs="+", default=[200, 400, 800])
    parser.add_argument("--lines", type=int, nargs="+", default=[1000, 2000, 4000])
    args = parser.parse_args()
    options = engine.Options(frozenset(r.code for r in all_rules() if r.default_enabled))
    cpu_seconds(many_kernels(4), options)  # imports and first-use costs out of the timings
    cpu_seconds(long_kernel(100), options)
    report("kernels in one file", args.kernels, many_kernels, options)
    report("lines in one kernel", args.lines, long_kernel, options)


if __name__ == "__main__":
    main()
