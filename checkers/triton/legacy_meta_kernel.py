"""KL133 legacy-meta-kernel: a Triton 1.x kernel (`**meta` parameter, `meta['BLOCK']`)."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.model.dsl import triton
from kernelint.model.dsl.versioning import parse_version
from kernelint.model.triton.legacy import meta_keys, meta_parameter
from kernelint.rules import Report, Rule

_BINDING_DROPPED = next(c for c in triton.API_CHANGES if c.api == triton.META_KERNELS)
_DECORATOR_REJECTS = next(c for c in triton.API_CHANGES if c.api == triton.META_PARAMETER_REJECTED)


class LegacyMetaKernel(Rule):
    code = "KL133"
    name = "legacy-meta-kernel"
    family = "triton-versions"
    dsl = "triton"
    severity = Severity.ERROR
    other_severities = (Severity.INFO,)
    default_enabled = False
    evidence_class = "compile"
    summary = "A Triton 1.x kernel (`**meta`, `meta['BLOCK']`): Triton 2.0+ does not pass launch keywords that way."
    wants_finish = True
    doc = """
## What it does
Recognises a Triton kernel written for Triton 1.x: a `@triton.jit` function with a `**meta`
parameter whose body reads `meta['BLOCK']`. It reports one finding per kernel, on the parameter,
saying what the kernel was written for and what the targeted release does with it:

- target 2.0.0 or later (from `--triton-version`, `triton-version`, the project's pins, the
  installed Triton, or the newest kernelint knows): `error`. Triton 2.0 no longer binds `**meta`
  to the launch's keywords, and from 3.9.0 `@triton.jit` raises `TypeError: JIT functions do not
  support **meta parameters` as soon as the module is imported;
- target 1.x (the project pins `triton==1.0.0`, say): `info`, the kernel matches its pin.

Other Triton rules do not read such a kernel with Triton 2 semantics: KL123 no longer reports
`BLOCK = meta['BLOCK']; tl.arange(0, BLOCK)` as a run-time shape.

Off by default: no corpus repository has a Triton 1.x kernel, so its precision on real code is
not measured. The pair reproduced on the H200 with Triton 3.6.0 (`TypeError: dynamic_func() missing
1 required positional argument: 'meta'` at launch); compiled on the CPU, 2.3.1 and 3.3.1 stop at
`NameError: meta is not defined`, 3.8.0 at an internal `AttributeError`, and 3.9.0 refuses the
decorator (*Evidence*, other releases). The 1.x side could not be run here (Triton 1.x wheels are
for Python 3.9 and a CUDA driver).

## Why is this bad?
On a current Triton the module does not import (3.9) or the kernel does not compile; the
diagnosis a 2.x-minded reader gives (`BLOCK` is not a constexpr) sends the user the wrong way.
The port is mechanical: each `meta['X']` becomes a parameter `X: tl.constexpr`.

## Example
```python
@triton.jit
def _add(X, Y, Z, N, **meta):
    BLOCK = meta['BLOCK']
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
```

## Use instead
```python
@triton.jit
def _add(X, Y, Z, N, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
```
"""
    references = """
- Triton 1.0.0 / 1.1.1 wheels: `code_gen.py` binds a kernel's `**meta` to the launch keywords;
  2.0.0's compiler has no such binding; 3.9.0's `runtime/jit.py` raises `TypeError` for it.
- Issue 22: a module pinned to `triton==1.0.0` drew 19 findings with a wrong diagnosis.
"""

    def finish(self, ctx):
        target = ctx.target("triton")
        for kernel in ctx.kernels:
            parameter = meta_parameter(kernel)
            if parameter is None:
                continue
            keys = meta_keys(kernel)
            reads = f", reads {', '.join(repr(k) for k in keys)} from it" if keys else ""
            what = f"`{kernel.name}` is a Triton 1.x kernel (`**{parameter.arg}` parameter{reads})"
            if not target.at_least(parse_version(_BINDING_DROPPED.version)):
                yield Report(parameter, f"{what}, written for the Triton 1.x this code targets "
                                        f"({target.describe()}); Triton 2.0 and later reject it",
                             severity=Severity.INFO)
                continue
            if target.at_least(parse_version(_DECORATOR_REJECTS.version)):
                failure = "@triton.jit raises TypeError ('JIT functions do not support **meta parameters') " \
                          "when the module is imported"
            else:
                failure = "nothing binds `meta` any more and the kernel does not compile (NameError: meta is not defined)"
            params = ", ".join(f"{k}: tl.constexpr" for k in keys) or "one `tl.constexpr` parameter per key"
            yield Report(parameter, f"{what}; this code targets {target.describe()}, where {failure}: "
                                    f"declare {params} instead")
