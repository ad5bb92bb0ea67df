"""Inputs, the torch reference and the bytes read for KL118 (constexpr-from-runtime-size).

`lengths` holds distinct token counts; `run` takes the next one on every call, like a serving loop
where each request brings a new length. `do_bench` calls `run` repeatedly, so the bad kernel's
time per call is the time to compile it for a new length (except in the control case, where
every request has the same length)."""
import random

import torch


def make_inputs(case, device):
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(case["max_tokens"], case["hidden"], generator=generator)
    # `distinct` lengths (default 64), repeated to 64 calls: the control case has one length, so
    # the bad kernel compiles once, like the good one.
    distinct = case.get("distinct", 64)
    lengths = random.Random(0).sample(range(case["min_tokens"], case["max_tokens"] + 1), distinct)
    lengths = (lengths * 64)[:64]
    return {"x": x.to(device), "lengths": lengths, "step": [0]}


def reference(x, lengths, step):
    return x[: lengths[step[0] % len(lengths)]].float().sum(dim=0)


def work(case):
    return (case["min_tokens"] + case["max_tokens"]) // 2 * case["hidden"] * 4, "B"
