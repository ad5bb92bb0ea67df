"""KL139 fp32-dot-default-tf32: TODO one-line summary."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.rules import Report, Rule


class Fp32DotDefaultTf32(Rule):
    code = "KL139"
    name = "fp32-dot-default-tf32"
    family = "triton-TODO"
    dsl = "triton"
    # Start quiet; the evidence policy (rule-catalog.md) decides severity and default once the
    # pair is measured with `kernelint prove KL139`.
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "numerics"
    summary = "TODO: one sentence, what is wrong and what it costs."
    node_types = (ast.Call,)
    doc = """
## What it does
TODO: what the rule looks for, and the correct code it stays silent on.

## Why is this bad?
TODO: what goes wrong at run time, in your own words.

## Example
```python
TODO
```

## Use instead
```python
TODO
```
"""
    references = """
- TODO: the seed section or issue threads the rule comes from.
"""

    def check(self, node, ctx):
        if ctx.kernel_of(node, "triton") is None:
            return
        return
        yield Report(node, "TODO")
