"""KL406 cutile-loop-variable-after-loop: TODO one-line summary."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.rules import Report, Rule


class CutileLoopVariableAfterLoop(Rule):
    code = "KL406"
    name = "cutile-loop-variable-after-loop"
    family = "cutile-TODO"
    dsl = "cutile"
    # Start quiet; the evidence policy (rule-catalog.md) decides severity and default once the
    # pair is measured with `kernelint prove KL406`.
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "compile"
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
        if ctx.kernel_of(node, "cutile") is None:
            return
        return
        yield Report(node, "TODO")
