"""Host cost of a per-call `cute.compile` (KL311's per-call form), measured without a GPU.

The KL311 pair's kernel (scale one (rows, 128) fp32 chunk by 2) is compiled the way a per-request
function that compiles and launches each time would (`cute.compile` on every call), and the way a
cached one would (one compile, then a dict lookup per call). Only the host side is timed:
`cute.compile` traces, lowers and compiles to a cubin on the CPU, which is what each call of the
per-call form pays before its launch; the launch itself needs a GPU and is not part of this.

usage: PYTHONPATH=/opt/cutedsl:/opt/cutedsl/nvidia_cutlass_dsl/dsl_packages python compile_cost.py OUT.json
"""
import json
import platform
import statistics
import sys
import time

import torch

import cutlass.cute as cute
from cutlass.cute.runtime import from_dlpack

THREADS = 128


@cute.kernel
def scale_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    dst[bidx, tidx] = src[bidx, tidx] * 2.0


@cute.jit
def scale(src: cute.Tensor, dst: cute.Tensor):
    scale_kernel(src, dst).launch(grid=(cute.size(src, mode=[0]), 1, 1), block=(THREADS, 1, 1))


_CACHE = {}


def per_call(x, out):
    src, dst = from_dlpack(x), from_dlpack(out)
    return cute.compile(scale, src, dst)


def cached(x, out):
    src, dst = from_dlpack(x), from_dlpack(out)
    key = (tuple(x.shape), x.dtype)
    if key not in _CACHE:
        _CACHE[key] = cute.compile(scale, src, dst)
    return _CACHE[key]


def timed(fn, calls, x, out):
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        fn(x, out)
        times.append(time.perf_counter() - start)
    return times


def main():
    x = torch.randn(8, THREADS)
    out = torch.empty_like(x)
    cute.compile(scale, from_dlpack(x), from_dlpack(out))  # warm the DSL's imports once
    calls = 20
    per_call_s = timed(per_call, calls, x, out)
    cached_s = timed(cached, calls, x, out)
    result = {
        "what": "host seconds per call of a function that compiles on every call vs one that caches the compile",
        "calls": calls,
        "per_call_compile_s": {"median": statistics.median(per_call_s), "min": min(per_call_s), "max": max(per_call_s)},
        "cached_s": {"median": statistics.median(cached_s), "first": cached_s[0],
                     "median_after_first": statistics.median(cached_s[1:])},
        "ratio_median_per_call_vs_cached_after_first": statistics.median(per_call_s) / statistics.median(cached_s[1:]),
        "nvidia_cutlass_dsl": __import__("importlib.metadata").metadata.version("nvidia-cutlass-dsl"),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}; no GPU (compile only)",
    }
    print(json.dumps(result, indent=1))
    with open(sys.argv[1], "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
