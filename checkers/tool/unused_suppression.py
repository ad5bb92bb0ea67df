"""KL003 unused-suppression: A suppression comment names a kernelint rule that reports nothing
there."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.rules import Rule


class UnusedSuppressionRule(Rule):
    code = "KL003"
    name = "unused-suppression"
    family = "tool"
    dsl = "any"
    severity = Severity.WARNING
    evidence_class = "none"
    summary = "A suppression comment names a kernelint rule that reports nothing there."
    doc = """
## What it does
Reports a `# noqa: KLxxx` or `# kernelint: disable=...` comment that silences nothing: the named
rule ran and had no finding on the line (or in the file, for `disable-file`), or the name is not
a kernelint rule. Suppressions of rules that were not selected are left alone, and codes of other
tools in a `# noqa` are ignored.

## Why is this bad?
Stale suppressions hide future problems on that line and mislead readers about what is wrong
with the code.

## Example
```python
y = tl.load(x_ptr + offs, mask=mask)  # noqa: KL101
```

## Use instead
```python
y = tl.load(x_ptr + offs, mask=mask)
```
"""

