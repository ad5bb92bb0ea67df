"""KL322 wgmma-stage-released-before-wait: a pipeline stage handed back to its producer after
the wgmma group that reads it was committed and before any `warpgroup.wait_group`."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.wgmma import is_wgmma_commit, release_before_wait
from kernelint.rules import Report, Rule


class WgmmaStageReleasedBeforeWait(Rule):
    code = "KL322"
    name = "wgmma-stage-released-before-wait"
    family = "cute-pipeline"
    dsl = "cute"
    # H200 (2026-12-01, run 2026-12-01-h200-issue23-item16-KL322): wrong products at 4096^3
    # (2,551,588 of 16,777,216 out of tolerance) but none at 512^3, so `prove` says not-reproduced
    # (1 of 2 cases): info and off, as the evidence policy requires.
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "numerics"
    summary = ("`consumer_release` of a pipeline stage after `warpgroup.commit_group()` and before any "
               "`warpgroup.wait_group(n)`: the producer may refill shared memory the wgmma still reads.")
    node_types = (ast.Call,)
    doc = """
## What it does
Reports, in a `@cute.jit` / `@cute.kernel` function, a call that hands a pipeline stage back to
its producer (`pipeline.consumer_release(state)`, or `handle.release()` on a handle from
`consumer.wait_and_advance()`) that the code reaches after `cute.nvgpu.warpgroup.commit_group()`
with no `warpgroup.wait_group(n)` in between. Inside a loop the calls are read in order from the
commit to the end of the body and on from the body's start (the next iteration), so a release at
the top of the loop body is reported too when nothing waits for the previous iteration's group.

Only a stage the group can read counts: the released pipeline must have been waited for
(`consumer_wait`, or the handle made) before the commit. A pipeline first waited for after the
commit feeds the threads, not the MMA (flashinfer's fp8 MoE reads its scale factors while the
wgmma runs and hands their stage back before waiting), and is not reported.

It stays silent when a wait comes first, whatever its `n` (CUTLASS's kernels wait with
`wait_group(k_pipe_mmas)` and release a state that lags that many stages behind), when a helper of
the file that waits is called in between, when the release sits in the other arm of an `if`, and
for groups committed inside a helper (flash-attention's and quack's `gemm(..., wg_wait=...)`):
those are a known miss.

## Why is this bad?
On SM90 `cute.gemm` with a warpgroup MMA issues asynchronous `wgmma.mma_async` instructions that
read A and B from shared memory after the issuing threads have moved on. `commit_group()` closes
the group; only `wait_group(n)` tells the threads that the group has finished reading. Releasing
the stage earlier lets the TMA producer overwrite the tile while the tensor cores may still read
it, so the product mixes two k-tiles.

The compiler does not repair it. Compiled without a GPU with nvidia-cutlass-dsl 4.8.1 for
sm_90a (CUTLASS's Hopper `dense_gemm.py` example with its main loop's
`warpgroup.wait_group(k_pipe_mmas)` and final `wait_group(0)` removed), ptxas reported
`(C7517) warpgroup.wait is injected ... to allow use of registers defined by GMMA` and put the
wait after the stage's `SYNCS.ARRIVE` (the release) in the SASS: release at 0x1930, first
`WARPGROUP.DEPBAR` at 0x19e0; in the original kernel `WARPGROUP.DEPBAR.LE gsb0, 0x1` comes
before the release. Removing `warpgroup.fence()` or `commit_group()` instead gave SASS identical
to the original (ptxas injects `warpgroup.arrive`, C7519), so this rule does not report those
(`benchmarks/cute_compile_only/wgmma_group_protocol.py`).

On an H200 (2026-12-01, nvidia-cutlass-dsl 4.8.1, the pair's 4-stage TMA pipeline, fp16 in, fp32
accumulate) the bad kernel's product was wrong at 4096 × 4096 × 4096 (2,551,588 of 16,777,216
elements out of tolerance, max abs error 109 against the good kernel's 2.7e-3) and right at
512 × 512 × 512 (it matched the reference to the same 1.1e-4 as the good kernel): the race showed
at one size of two, so `kernelint prove` calls the claim not reproduced and the rule stays info,
off by default (*Evidence* below).

Over the CuTe DSL corpus (CUTLASS, quack, flashinfer, flash-attention, Liger-Kernel) it examines
52 commits and reports nothing; the same CUTLASS Hopper GEMMs (`dense_gemm.py`,
`dense_gemm_persistent.py`) with their main-loop wait removed are reported, 2 of 2.

## Example
```python
cute.nvgpu.warpgroup.fence()
for k_block in cutlass.range(num_k_blocks, unroll_full=True):
    cute.gemm(tiled_mma, acc, tCrA[None, None, k_block, read.index], tCrB[None, None, k_block, read.index], acc)
cute.nvgpu.warpgroup.commit_group()
pipeline.consumer_release(read)
```

## Use instead
```python
cute.nvgpu.warpgroup.commit_group()
cute.nvgpu.warpgroup.wait_group(0)
pipeline.consumer_release(read)
```
"""
    references = """
- Issue 23 item 16, from the CuTe DSL seed: "Protocol around every gemm group: `warpgroup.fence();
  [gemm calls]; warpgroup.commit_group(); warpgroup.wait_group(N)`".
- PTX ISA, `wgmma.commit_group` / `wgmma.wait_group`: the shared-memory operands may not be
  modified until the wait says the wgmma has completed.
- Compile-only record: `reference_kernels/evidence/runs/cute-compile-only/2026-12-01-kl322-wgmma-protocol-sass.txt`.
"""

    def check(self, node: ast.Call, ctx):
        if not is_wgmma_commit(ctx, node) or ctx.kernel_of(node, "cute") is None:
            return
        function = ctx.function_of(node)
        release = release_before_wait(ctx, node, function)
        if release is None:
            return
        group = (f"the previous iteration's wgmma group (committed on line {node.lineno})"
                 if release.lineno < node.lineno else f"the wgmma group committed on line {node.lineno}")
        yield Report(
            release,
            f"stage released by `{ast.unparse(release.func)}` after {group} and before any "
            f"`warpgroup.wait_group`: the producer may overwrite shared memory the MMA still reads; call "
            f"`cute.nvgpu.warpgroup.wait_group(n)` first",
        )
