"""KL116 autotune-key-not-a-parameter: An autotune `key` entry names no kernel parameter, so the
config tuned for the first shape serves every shape."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.model.triton import autotune
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.dsl.versioning import parse_version
from kernelint.model.triton.legacy import meta_parameter

_RAISES = next(c for c in triton.API_CHANGES if c.api == triton.AUTOTUNE_UNKNOWN_KEY_RAISES)
from kernelint.rules import Report, Rule


class AutotuneKeyNotAParameter(Rule):
    code = "KL116"
    name = "autotune-key-not-a-parameter"
    family = "triton-autotune"
    dsl = "triton"
    # Triton 3.9 rejects such a key when the module is imported; before it the key is ignored (a perf
    # cost measured at a 1.12x median), so the rule stays info and off; its message follows the
    # targeted release (see the doc's version scope).
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "perf"
    summary = "An autotune `key` entry names no kernel parameter: one tuned config serves every shape."
    wants_finish = True
    doc = """
## What it does
Flags an entry of `@triton.autotune(key=[...])` that is not the name of a parameter of the kernel
(a stale name after a parameter was renamed, a misspelling, a name from another kernel). Keys given
through a module-level list are read; a key list that cannot be read is left alone.

## Why is this bad?
The autotuner builds its cache key from the values of the named arguments and, up to Triton 3.6
at least, drops every name it does not find among the kernel's arguments without a word. With no
valid entry left the key holds only the tensors' dtypes: the config timed on the first shape the
kernel sees is reused for every later shape, however different. Nothing fails; the kernel is just
slow for most sizes, which reads as a performance mystery rather than a bug (triton PR #11602 found
even a test in Triton's own suite whose key had been empty since it was written).

Measured on the H200 (Triton 3.6.0): with the stale key, the config tuned on the first shape
(`BLOCK_N=64`, one warp) was kept for every later shape, where the correct key switched to
`BLOCK_N=8192`; the cost depends on the shape: 3.2x for 512 rows of 262,144, 1.12x for 2,048 rows
of 65,536, 1.0x for 8,192 rows of 16,384 (median 1.12x, below the 1.2x a warning needs).

Version scope: Triton 3.9.0 raises `ValueError: key contains names that are not kernel arguments`
when the decorator runs (triton PR #11602, merged 2026-09). The silent reuse was measured with
Triton 3.6.0; the 3.7.1 and 3.8.0 wheels' `autotuner.py` have no such check either, so it holds up
to 3.8. The message follows the targeted release (`--triton-version`, `triton-version`, the
project's pins, the installed Triton, or the newest kernelint knows): an import failure from 3.9.0,
the silent reuse before. The rule stays off by default (its measured cost is below the 1.2x a
warning needs): turn it on with `extend-select = ["KL116"]`.

## Example
```python
@triton.autotune(configs=[triton.Config({"BLOCK_N": 64}), triton.Config({"BLOCK_N": 8192})],
                 key=["N"])          # the parameter was renamed to n_cols
@triton.jit
def row_sum(x_ptr, out_ptr, n_cols, stride, BLOCK_N: tl.constexpr):
    ...
```

## Use instead
```python
@triton.autotune(configs=[...], key=["n_cols"])
```
"""
    references = """
- triton-lang/triton PR #11602 ("Reject autotune name lists that are not kernel arguments"): the
  tuning key silently skipped unknown names; `Autotuner.run` in Triton 3.6 builds the key only from
  names found among the arguments.
"""

    def finish(self, ctx):
        target = ctx.target("triton")
        if target.at_least(parse_version(_RAISES.version)):
            effect = (f"Triton {_RAISES.version} and later raise ValueError ('key contains names that are not kernel "
                      f"arguments') when the decorator runs, so the module does not import")
        else:
            effect = "Triton up to 3.8 ignores such keys, so the config tuned for the first shape is reused for every shape"
        for kernel in ctx.kernels:
            if kernel.dsl != "triton" or kernel.autotune is None or meta_parameter(kernel) is not None:
                continue
            keys = autotune.name_list(ctx, kernel.autotune.node, "key")
            if not keys:
                continue
            parameters = {a.arg for a in kernel.params}
            unknown = [key for key in keys if key.value not in parameters]
            if not unknown:
                continue
            call = kernel.autotune.node
            inside = all(any(a is call for a in ctx.ancestors(key)) for key in unknown)
            names = ", ".join(f"`{key.value}`" for key in unknown)
            yield Report(
                unknown[0] if inside else signature_argument(call, triton.SIGNATURES[triton.AUTOTUNE], "key"),
                f"autotune key {names} {'is not a parameter' if len(unknown) == 1 else 'are not parameters'} of "
                f"`{kernel.name}`: {effect} (this code targets {target.describe()})",
                end_node=unknown[-1] if inside else None,
            )
