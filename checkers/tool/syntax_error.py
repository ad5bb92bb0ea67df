"""KL001 syntax-error: The file does not parse, so nothing in it was checked."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.rules import Rule


class SyntaxErrorRule(Rule):
    code = "KL001"
    name = "syntax-error"
    family = "tool"
    dsl = "any"
    severity = Severity.ERROR
    evidence_class = "none"
    summary = "The file does not parse, so nothing in it was checked."
    doc = """
## What it does
Reports a file that Python cannot parse, once, at the position of the syntax error.

## Why is this bad?
kernelint reads source with Python's `ast` module. A file that does not parse cannot be checked,
so every other rule is silent on it. The report makes that visible instead of passing silently.

## Example
```python
@triton.jit
def kernel(x_ptr
    pass
```

## Use instead
Fix the syntax error; the other rules then run on the file.
"""

