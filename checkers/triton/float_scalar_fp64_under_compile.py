"""KL146 float-scalar-fp64-under-compile: a Python float kernel argument used in arithmetic as it
arrives, which Inductor passes as fp64 when the launch runs under ``torch.compile``."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.index.launch import launch_sites
from kernelint.model.triton.float_scalars import first_arithmetic_use, not_traced_by_compile, python_float
from kernelint.rules import Because, Report, Rule


class FloatScalarFp64UnderCompile(Rule):
    code = "KL146"
    name = "float-scalar-fp64-under-compile"
    family = "triton-performance"
    dsl = "triton"
    # H200 (torch 2.11 + Triton 3.6): median 1.54x under torch.compile, so a warning; off by default
    # at 65% corpus precision: a third of its findings are kernels torch.compile never launches.
    severity = Severity.WARNING
    default_enabled = False
    evidence_class = "perf"
    summary = ("A Python float kernel argument used in arithmetic as it arrives: fp32 in eager Triton, "
               "fp64 when the launch runs under `torch.compile`, which then computes in fp64.")
    per_kernel = "triton"
    doc = """
## What it does
Flags the first arithmetic use (`x * scale`, `var + eps`) of a non-`constexpr` Triton kernel
parameter that a launch passes a Python `float`: a float literal, a name bound to one, or a
parameter of the launching function annotated `float` or defaulting to a float literal
(`eps: float = 1e-6`). The launches are read across the project.

It stays silent when the launch sits in a function `torch.compile` does not trace
(`@torch.compiler.disable`, `@torch._dynamo.disable`, `@torch.library.custom_op(...)`), when the
kernel converts the parameter anywhere (`eps = eps.to(tl.float32)`,
`tl.cast(eps, tl.float32)`: the fix), on `tl.constexpr` parameters, on parameters only compared
(`if scale > 0`), and when a launch's value cannot be shown to be a Python float (a tensor, an
attribute, a value computed at run time).

## Why is this bad?
Eager Triton types a Python `float` argument as fp32. Inductor, which launches the same kernel
when the caller runs under `torch.compile`, types it as fp64 (a Python float is a double), and
Triton promotes arithmetic between an fp32 tile and an fp64 scalar to fp64. The kernel then does
its exponentials, square roots and products in double precision, only when compiled: fp64 runs at
a fraction of the fp32 rate (half on H100-class GPUs for plain arithmetic, far less for `exp` and
`rsqrt`, which have no fp64 hardware approximation, and 1/64 on consumer GPUs). Liger-Kernel
measured its SwiGLU kernel at 108 µs instead of 56 µs this way (PR #1330, #1350) and fixed the
norms after (#1358).

Measured on the H200 (torch 2.11.0, Triton 3.6.0, the reference pair: Liger-Kernel's SwiGLU
forward in fp16, launched from a `torch.compile`d function): the compiled kernel's PTX held 418
lines with `.f64` against 2 with the cast (the parameter read and its conversion) and 0 in eager
Triton; time median 1.54x (1.03x at 4096 x 4096, 1.54x at 8192 x 3072, 2.10x at 16384 x 4096).
A separate probe (`benchmarks/device/issue23_probe.py`, one process per variant) gave 2.55x at
8192 x 3072 (0.106 ms against 0.042 ms) and 2.10x at 16384 x 4096; why the fixed kernel took
0.069 ms at 8192 x 3072 in the pair's run, and why 4096 x 4096 showed no difference there, was
not found.
Eager launches are not affected: the same kernel outside `torch.compile` ran as fast as the
fixed one under it (0.041 ms vs 0.042 ms at 8192 x 3072).

The rule is off by default: over the corpus 106 of its 162 findings are true or latent (65%);
the other 56 are kernels that `torch.compile` never launches (FlagGems' aten overrides, Ascend
backends, torchao's `float8nocompile`), where the construct costs nothing. Turn it on (`extend-select = ["KL146"]`) for kernels your model calls
under `torch.compile`.

## Example
```python
@triton.jit
def swiglu_kernel(a_ptr, b_ptr, c_ptr, gate_multiplier, n_cols, BLOCK: tl.constexpr):
    ...
    a = tl.load(a_ptr + cols, mask=mask).to(tl.float32) * gate_multiplier
```

## Use instead
```python
    a = tl.load(a_ptr + cols, mask=mask).to(tl.float32) * gate_multiplier.to(tl.float32)
```
(a no-op in eager Triton), or make the value a `tl.constexpr` when it takes few values.
"""
    references = """
- linkedin/Liger-Kernel PR #1330 (SwiGLU), #1350 (RMSNorm) and #1358 ("Pin fp64 scalar kernel
  params to fp32 in remaining norm ops"): the PTX of the compiled kernels held hundreds of `.f64`
  instructions before the cast and none after.
- torch/_inductor/codegen/triton_utils.py `signature_of`: float arguments are typed `fp64` when
  the device supports it (`config._use_fp64_for_unbacked_floats`); the fp64 typing came with
  pytorch PR #170289 (December 2025, "Fix unbacked floats being downcast to fp32 in Triton
  kernels"), and is in torch 2.11 (measured) and 2.13 (read). pytorch PR #190340 proposed fp32
  again for user-defined Triton kernels; it is not in 2.13. Before #170289 Inductor passed fp32,
  and this rule's finding costs nothing there.
- Issue 23, item 10.
"""

    def check_kernel(self, kernel, ctx):
        constexprs = kernel.constexpr_names(ctx.qualname)
        candidates = [p for p in kernel.params if p.arg not in constexprs]
        if not candidates:
            return
        sites = None
        for param in candidates:
            use = first_arithmetic_use(ctx, kernel, param)
            if use is None:
                continue
            if sites is None:
                sites = launch_sites(ctx, kernel)
            shown = self._passed_float(sites, param.arg)
            if shown is None:
                continue
            site_ctx, evidence = shown
            yield Report(
                use,
                f"`{param.arg}` is a Python float argument (`{short(evidence)}`): eager Triton passes it as fp32, "
                f"but a launch under `torch.compile` passes it as fp64 and `{short(use)}` then computes in "
                f"fp64, at a fraction of the fp32 rate; cast it once in the kernel "
                f"(`{param.arg} = {param.arg}.to(tl.float32)`)",
                facts=(Because(f"a launch passes `{short(evidence)}` for `{param.arg}` "
                               f"({site_ctx.path}:{evidence.lineno})"),),
            )

    @staticmethod
    def _passed_float(sites, name: str):
        """(the launch's file model, the node showing a float) for the first launch that passes
        ``name`` a Python float; None when no launch does."""
        for site in sites:
            launch = getattr(site, "launch", None)
            if launch is None or not_traced_by_compile(site.ctx, site.node):
                continue
            argument = launch.bound_arguments().get(name)
            if argument is None:
                continue
            evidence = python_float(site.ctx, argument)
            if evidence is not None:
                return site.ctx, evidence
        return None
