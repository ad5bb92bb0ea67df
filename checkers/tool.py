"""Tool rules (KL0xx): reported by the engine itself, documented here like every other rule."""
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


class InternalErrorRule(Rule):
    code = "KL002"
    name = "internal-error"
    family = "tool"
    dsl = "any"
    severity = Severity.ERROR
    evidence_class = "none"
    summary = "A rule crashed on this file; the other rules still ran."
    doc = """
## What it does
Reports that one of kernelint's rules raised an exception on this file. The message names the
rule and the exception. All other rules still ran, and their findings are reported as usual.

## Why is this bad?
The failing rule could not check this file, so it may have missed a problem. This is a bug in
kernelint, not in your code.

## Example
Any file on which a rule fails, e.g. on an unusual but valid construct.

## Use instead
Please report it with the file (or a reduced snippet). To silence it meanwhile, ignore the
failing rule for that file with `per-file-ignores`.
"""


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
