"""KL135 shared-memory-over-target: a launch or autotune config whose pipeline needs more shared
memory than the target has."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.model.triton.shared_memory import worst_per_setting
from kernelint.rules import Report, Rule
from kernelint.targets import shared_memory_limit


class SharedMemoryOverTarget(Rule):
    code = "KL135"
    name = "shared-memory-over-target"
    family = "triton-resources"
    dsl = "triton"
    severity = Severity.ERROR
    other_severities = (Severity.INFO,)
    default_enabled = True
    evidence_class = "compile"
    summary = ("A fixed launch, or every literal autotune config, of a Triton kernel needs more shared memory "
               "for its `tl.dot` pipeline than the target GPU has: `OutOfResources` at the first launch.")
    wants_finish = True
    doc = """
## What it does
Estimates, per launch (`kernel[grid](..., BLOCK_M=128, BLOCK_K=64, num_stages=4)`) and per
autotune config (a literal list of `triton.Config({...}, num_stages=...)`, comprehensions over
literal lists and ranges, concatenations of those), the shared memory the software pipeline of
each K loop needs: `num_stages` copies of every tile a `tl.dot` in a `for` loop reads with
`tl.load` in that loop, tile sizes from the `tl.arange`s or the block pointer's `block_shape`
under the values the launch or config fixes, element sizes from the host tensors passed (1 byte,
the least a dot operand has, where they cannot be followed). It reports a launch whose estimate
is over the target's limit, and an autotuned kernel whose configs are all over it (the autotuner
skips a config that does not fit, but with none left the launch fails). A config that is over
while others fit is reported at info: it never runs on that target, and the autotuner compiles
it for nothing each time it tunes (not when a comprehension filter decides which configs exist).

The limit is `target-arch`'s (sm_80 and sm_87: 166,912 bytes; sm_86, sm_89, sm_120: 101,376;
sm_75: 65,536; sm_90 and sm_100: 232,448); with no `target-arch`, the largest any GPU has, so
only what fits nowhere is reported. The estimate counts the pipelined tiles only, a lower bound:
it stays silent on settings it cannot fold, on loops whose tiles it cannot size, and on
`num_stages` it cannot read.

## Why is this bad?
Triton checks a compiled kernel's shared memory when it loads it: "out of resource: shared
memory, Required: 589824, Hardware limit: 101376. Reducing block sizes or `num_stages` may help"
(mamba's `chunk_scan` on consumer GPUs; vllm #36802 on a T4; triton #8182 on sm_120). Tile sizes
and stages tuned on an H100 fail on every smaller part, at the first call, in production.

Measured on the H200 (Triton 3.6, the record below): the pair's fp16 256x256x64 GEMM at 4 stages
failed with "out of resource: shared memory, Required: 262144, Hardware limit: 232448", the
estimate to the byte; at 3 stages (196,608 B) it ran and matched. The estimate assumes the loads
are pipelined, as Triton does when the tensors are 16-byte aligned (the usual case); with
unaligned strides Triton keeps one stage and such a launch fits, until an aligned input comes.

## Example
```python
matmul_kernel[grid](a, b, c, M, N, K, BLOCK_M=256, BLOCK_N=256, BLOCK_K=64, num_stages=4)
# 4 * (256*64 + 64*256) * 2 B = 262,144 B > 232,448 B (sm_90)
```

## Use instead
```python
matmul_kernel[grid](a, b, c, M, N, K, BLOCK_M=256, BLOCK_N=256, BLOCK_K=64, num_stages=3)
# 196,608 B; or autotune over configs sized for each target and prune the rest
```
"""
    references = """
- triton-lang/triton #8182 (131,072 B over sm_120's 101,376), `python/triton/runtime/autotuner.py`
  (configs raising `OutOfResources` are skipped), `triton/ops/matmul_perf_model.py`
  `early_config_prune` (`(BLOCK_M + BLOCK_N) * BLOCK_K * num_stages * dtsize`).
- vllm-project/vllm #36802 (T4: 81,920 over 65,536), #12498; InternLM/lmdeploy #2451;
  OpenSpaceAI/DEST3D #2 (mamba `chunk_scan_fwd_kernel`: 589,824 over 101,376, fixed by lowering
  `num_stages`).
"""

    def finish(self, ctx):
        limit = shared_memory_limit(ctx.target_sm)
        if limit is None:
            return
        target = f"sm_{ctx.target_sm}" if ctx.target_sm is not None else "the largest GPU (sm_90, sm_100)"
        for kernel in ctx.kernels_of("triton"):
            found = worst_per_setting(ctx, kernel, above=limit)
            for setting, estimate in found:
                if not setting.config and estimate is not None and estimate.bytes > limit:
                    yield Report(setting.site, _message(kernel.name, estimate, limit, target, "this launch"))
            configs = [(s, e) for s, e in found if s.config]
            if not configs:
                continue
            over = [e for _, e in configs if e is not None and e.bytes > limit]
            if len(over) == len(configs):
                smallest = min(over, key=lambda e: e.bytes)
                every = f"every one of its {len(configs)} autotune configs (the smallest)"
                yield Report(kernel.autotune.node, _message(kernel.name, smallest, limit, target, every))
            elif over and not any(s.filtered for s, _ in configs):
                yield from _dead_configs(kernel.name, over, limit, target)


def _dead_configs(kernel: str, over: list, limit: int, target: str):
    """One info report per ``triton.Config`` call with configs that can never run on the target
    (a config counted once however many launches it is tuned under)."""
    by_site: dict[int, dict[tuple, object]] = {}
    for estimate in over:
        variants = by_site.setdefault(id(estimate.setting.site), {})
        key = tuple(sorted(estimate.setting.bound.items()))
        if key not in variants or estimate.bytes < variants[key].bytes:
            variants[key] = estimate
    for variants in by_site.values():
        smallest = min(variants.values(), key=lambda e: e.bytes)
        several = len(variants) > 1
        count = f"{len(variants)} of the configs this builds" if smallest.setting.bound else "this config"
        bound = ", ".join(f"{k}={v}" for k, v in smallest.setting.bound.items())
        yield Report(smallest.setting.site, (
            f"`{kernel}`: {count} ({bound or 'as written'}) {'need' if several else 'needs'} at least "
            f"{smallest.bytes:,} B of shared memory for the pipeline, over the {limit:,} B {target} allows: "
            f"the autotuner compiles and skips {'them' if several else 'it'} on every call with new keys; "
            f"drop or shrink {'them' if several else 'it'} for this target"), severity=Severity.INFO)


def _message(kernel: str, estimate, limit: int, target: str, what: str) -> str:
    parts = " + ".join(f"{elements:,}x{size} B" for _, elements, size in estimate.tiles)
    least = " (element sizes not known: 1 byte assumed)" if estimate.least_element else ""
    return (f"`{kernel}` under {what} needs at least {estimate.bytes:,} B of shared memory for its pipeline "
            f"({estimate.num_stages} stages x ({parts})){least}, over the {limit:,} B {target} allows: "
            f"OutOfResources at launch; lower num_stages or the tile sizes")
