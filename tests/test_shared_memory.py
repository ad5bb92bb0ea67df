"""The shared-memory estimate of a Triton kernel's tl.dot pipeline (model/triton/shared_memory.py) and
KL135 against the target's limit (targets.shared_memory_limit)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kernelint.engine import Options, check_source
from kernelint.model.context import FileContext
from kernelint.model.triton.shared_memory import DEFAULT_NUM_STAGES, estimates
from kernelint.targets import LARGEST_SHARED_MEMORY_PER_BLOCK, shared_memory_limit

FIXTURES = Path(__file__).parent / "fixtures" / "triton"

GEMM = '''
import torch
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K, stride_a, stride_b, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * stride_a + rk[None, :]
    b = b_ptr + rk[:, None] * stride_b + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK
        b += BK * stride_b
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def run(x, y):
    x16 = x.half()
    y16 = y.half()
    c = torch.empty((x.shape[0], y.shape[1]), device=x.device, dtype=torch.float32)
    mm[(8, 8)](x16, y16, c, x.shape[1], x16.stride(0), y16.stride(0), BM=128, BN=128, BK=64STAGES)
    return c
'''


def _estimates(source: str):
    ctx = FileContext("gemm.py", source, ast.parse(source), [])
    return estimates(ctx, ctx.kernels[0])


@pytest.mark.parametrize("stages", [None, 2, 4])
def test_gemm_estimate_is_triton_formula(stages):
    """(BM + BN) * BK * num_stages * element size: 32,768 B a stage for fp16 128x128x64 tiles (the
    sm_90 metadata.shared Triton 3.9 reports for this kernel once its loads are aligned)."""
    source = GEMM.replace("STAGES", "" if stages is None else f", num_stages={stages}")
    (estimate,) = _estimates(source)
    assert not estimate.least_element
    assert estimate.num_stages == (stages or DEFAULT_NUM_STAGES)
    assert estimate.bytes == (128 + 128) * 64 * 2 * estimate.num_stages


def test_unknown_element_size_is_one_byte():
    source = GEMM.replace("x16 = x.half()", "x16 = x").replace("STAGES", "")
    (estimate,) = _estimates(source)
    assert estimate.least_element
    assert estimate.bytes == 3 * (128 * 64 * 1 + 64 * 128 * 2)


def test_target_limits():
    assert shared_memory_limit(None) == LARGEST_SHARED_MEMORY_PER_BLOCK == 232448
    assert shared_memory_limit(86) == 101376
    assert shared_memory_limit(75) == 65536
    assert shared_memory_limit(61) is None


@pytest.mark.parametrize("target, reported", [(None, False), ("sm_90", False), ("sm_86", True), ("sm_75", True)])
def test_kl135_follows_target_arch(target, reported):
    """4 stages of fp16 128x128x64 tiles need 131,072 B: within sm_90's 232,448 (and the largest
    GPU's, the limit with no target), over sm_86's 101,376 and sm_75's 65,536."""
    source = GEMM.replace("STAGES", ", num_stages=4")
    findings = check_source("gemm.py", source, Options(frozenset({"KL135"}), target))
    assert bool(findings) is reported


TUNED = '''
import triton
import triton.language as tl

BASE = [triton.Config({"BM": 128, "BK": 64}, num_stages=3)]


@triton.autotune(configs=BASE + [triton.Config({"BM": bm, "BK": 32}, num_stages=s, num_warps=w)
                                 for bm in (64, 128) for s in range(2, 4) for w in [4]FILTER],
                 key=["K"])
@triton.jit
def k(x, K, BM: tl.constexpr, BK: tl.constexpr):
    pass
'''


@pytest.mark.parametrize("filter_clause, filtered", [("", False), (" if bm * s < 300", True)])
def test_tuned_configs_expand_comprehensions(filter_clause, filtered):
    from kernelint.model.triton.autotune import tuned_configs

    source = TUNED.replace("FILTER", filter_clause)
    ctx = FileContext("tuned.py", source, ast.parse(source), [])
    configs, was_filtered = tuned_configs(ctx, ctx.kernels[0].autotune.node)
    assert was_filtered is filtered
    assert [(c.values["BM"], c.values["BK"], c.options["num_stages"]) for c in configs] == [
        (128, 64, 3), (64, 32, 2), (64, 32, 3), (128, 32, 2), (128, 32, 3)]
    assert configs[1].bound == {"bm": 64, "s": 2, "w": 4} and configs[1].options["num_warps"] == 4
