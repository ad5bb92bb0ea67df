"""KL107 autotune-meta-conflict: A launch passes a meta-parameter that the kernel's autotune
configs or heuristics set."""
from __future__ import annotations

from kernelint.checkers.triton.helpers import SEED
from kernelint.edits import remove_keyword
from kernelint.findings import Fix, Severity
from kernelint.rules import Report, Rule


class AutotuneMetaConflict(Rule):
    code = "KL107"
    name = "autotune-meta-conflict"
    family = "triton-autotune"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "crash"
    summary = "A launch passes a meta-parameter that the kernel's autotune configs or heuristics set."
    wants_finish = True
    doc = """
## What it does
Flags an argument, at the launch of an `@triton.autotune` kernel, for a parameter that one of the
autotune's `triton.Config`s sets (`BLOCK_M=128` in the launch while a config sets `BLOCK_M`).
Also flags a positional argument for a parameter that `@triton.heuristics` computes.

A keyword argument for a heuristic's parameter is not reported: the heuristic silently replaces
it, and real code does this on purpose, passing the very value the heuristic computes.

## Why is this bad?
The autotuner supplies every name in a config's dict itself. When the caller passes one too,
Triton refuses the launch with `ValueError: Conflicting meta-parameters: BLOCK_M. Make sure that
you don't re-define auto-tuned symbols.` (with a single config, or when the value is passed
positionally, the duplicate raises `TypeError: got multiple values for argument` instead).

## Example
```python
@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    ...

scale_kernel[grid](x, y, n, BLOCK=128)
```

## Use instead
```python
scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, n)
```
"""
    references = f"""
- {SEED}, 'Advanced Triton patterns (cuTile → Triton)', section '2. Autotune + grid: `BLOCK_*`
  must come from `META`, not from the host'.
"""
    prior_evidence = """
On an H200 with triton 3.6.0, passing an autotuned meta-parameter at launch raised
`ValueError: Conflicting meta-parameters: BLOCK. Make sure that you don't re-define auto-tuned symbols.`
"""

    def finish(self, ctx):
        for launch in ctx.launches_of("triton"):
            kernel = launch.kernel
            configs = kernel.autotune.config_keys if kernel.autotune else set()
            if not configs and not kernel.heuristic_keys:
                continue
            for keyword in launch.node.keywords:
                if keyword.arg in configs:
                    edit = remove_keyword(launch.node, keyword, ctx.source.splitlines())
                    yield Report(
                        keyword,
                        f"`{keyword.arg}` is set by the autotune configs of `{kernel.name}`; passing "
                        "it at launch fails with `ValueError: Conflicting meta-parameters`",
                        # Unsafe: the autotuner then picks the value, which may not be the one meant.
                        fix=Fix(f"Drop `{keyword.arg}=` and let the autotuner choose it", (edit,), safe=False)
                        if edit else None,
                    )
            for name, arg in launch.bound_arguments().items():
                if name not in launch.keywords and (name in configs or name in kernel.heuristic_keys):
                    source = "autotune configs" if name in configs else "`@triton.heuristics`"
                    yield Report(
                        arg,
                        f"`{name}` is set by the {source} of `{kernel.name}`; passing it positionally "
                        "fails with `TypeError: got multiple values for argument`",
                    )

