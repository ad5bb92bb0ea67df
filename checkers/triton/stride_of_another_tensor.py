"""KL144 stride-of-another-tensor: a launch passes another tensor's stride for the stride a kernel
addresses a pointer with, and the host facts show the two tensors' strides differ."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.model.index.strides import foreign_strides
from kernelint.model.project import shapes
from kernelint.model.project.view import Site
from kernelint.rules import Because, Report, Rule


class StrideOfAnotherTensor(Rule):
    code = "KL144"
    name = "stride-of-another-tensor"
    family = "triton-pointers"
    dsl = "triton"
    # Reproduced on the H200 (numerics: 8,190,011 of 8,192,000 buffer elements wrong at M=8192,
    # N=1000 fp16, all 3 cases; run 2026-12-01-h200-issue20-KL144); no corpus finding (docs/precision.md).
    severity = Severity.ERROR
    default_enabled = True
    evidence_class = "numerics"
    summary = ("A launch passes `q.stride(i)` for the stride a kernel addresses another tensor `p` with, "
               "while `p`'s stride along that dimension differs (`p = q.t()`, an output of another "
               "width, a stepped slice): the kernel reads or writes the wrong elements of `p`.")
    wants_finish = True
    per_kernel = "triton"
    doc = """
## What it does
Flags a launch argument `q.stride(i)` (also `sm, sn = q.stride()`, `q.stride()[i]`, `*q.stride()`)
passed for a stride parameter that the kernel multiplies into the address of a pointer parameter
whose launch argument is another tensor `p`, when the host facts give both tensors' strides and
`q.stride(i)` differs from `p.stride(i)` for every size past 1: `p` is `q.t()` or `q.transpose(...)`
(strides `(1, N)` against `(N, 1)`), `p` has another width (an output of `N - 1` columns addressed
with the input's row stride `N`), `p` is a stepped slice (`q[:, ::2]`: column stride 2).
The parameter is taken to stride dimension `i` of `p`, as it strides dimension `i` of `q`
(`kernelint/model/index/strides.py`).

It stays silent when either tensor's strides are not known (a wrapper's tensor parameter that is
neither made `.contiguous()` nor allocated where the host facts read it: unknown stays quiet), when the strides are equal
(`out = torch.empty_like(x)` of a contiguous `x`, a piece of `xy.chunk(2, -1)` that keeps `xy`'s
strides; a step-1 slice `q[:, :k]` keeps `q`'s strides too), when they may be equal for some
sizes (`M` against `N`), when `p` and `q` differ in rank (a flat buffer addressed as rows on
purpose; `p = q[:, 0]`, a slice that drops an axis, is not compared for the same reason), on a dimension of size 1, and when the launch gives
`q`'s strides to `p`'s parameters in another order than the kernel lists them
(`q.stride(1), q.stride(0)` for `q.t()`: a mapping the author chose).

## Why is this bad?
The kernel addresses `p` as if it had `q`'s layout. With a shorter row the rows of `p` are written
at `q`'s pitch: row `r` lands `r` elements late, the last rows pass the end of `p` and overwrite
what follows it; with a transpose every element but the diagonal is read from the wrong place.
Tests with square or equal-width tensors pass, since the strides then agree.

## Example
```python
out = torch.empty((M, N - 1), device=x.device, dtype=x.dtype)
col_diff_kernel[(M,)](x, out, N, x.stride(0), x.stride(0), BLOCK_N=BLOCK_N)
```

## Use instead
```python
col_diff_kernel[(M,)](x, out, N, x.stride(0), out.stride(0), BLOCK_N=BLOCK_N)
```
"""
    references = """
- issue 20 (out-of-bounds forms missed: "a stride taken from a tensor of another layout").
"""
    prior_evidence = """
Before the H200 record (reference_kernels/evidence/KL144.json), the pair ran only under Triton's
interpreter on a CPU (2026-12-01; `TRITON_INTERPRET=1 kernelint prove --interpret KL144`, torch
2.13.0+cpu, Triton 3.9.0, run `reference_kernels/evidence/runs/2026-12-01-cpu-issue20-KL144-interpret`):
6,300 of 6,400 elements (64 × 100, fp32) and 8,223 of 8,481 (33 × 257, fp16) wrong, max abs error
8.04 and 8.43, the good kernel exact. The H200 run (2026-12-01, torch 2.11.0, Triton 3.6.0, run
`reference_kernels/evidence/runs/2026-12-01-h200-issue20-KL144`) gave the same two figures and, at
8,192 × 1,000 fp16, 8,190,011 of 8,192,000 wrong (max abs error 11.1), the good kernel exact in all
three cases: reproduced, so the rule is an error and on by default.

Corpus (12 repositories, docs/precision.md): no finding. Of 369 (access, stride parameter) pairs
whose launch argument reads another tensor's stride, 37 had both tensors' strides known, all equal
(pytorch/ao's fp8 attention quantization passes a contiguous `q`'s strides for `torch.empty_like(q)`);
the other 332 involve a tensor whose strides the host facts do not give (wrapper parameters).
"""

    def check_kernel(self, kernel, ctx):
        for launch in ctx.launches_here(kernel):
            yield from self._launch(ctx, launch)

    def finish(self, ctx):
        for launch in ctx.launches_of("triton", imported=True):
            if launch.kernel_ctx is not None:  # a kernel another module defines
                yield from self._launch(ctx, launch)

    @staticmethod
    def _launch(ctx, launch):
        kernel = launch.kernel
        site = Site(launch.node, ctx, launch=launch)
        for found in foreign_strides(launch.kernel_ctx or ctx, kernel, site):
            passed, actual = shapes.render(found.passed), shapes.render(found.actual)
            yield Report(
                found.argument,
                f"`{kernel.name}` addresses `{found.access.pointer}` (`{found.target}` here) with "
                f"`{found.parameter}`, but this launch passes `{found.source}`'s dimension-{found.axis} "
                f"stride {passed} while `{found.target}`'s is {actual}: the kernel reads or writes the "
                f"wrong elements of `{found.target}`; pass `{found.target}.stride({found.axis})`",
                cause=f"{kernel.name}:{found.access.pointer}:{launch.node.lineno}",
                facts=(Because(f"`{found.source}.stride({found.axis})` = {passed}", None),
                       Because(f"`{found.target}.stride({found.axis})` = {actual}", None)),
            )
