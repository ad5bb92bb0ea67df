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
    other_severities = (Severity.INFO,)  # valid syntax of a newer Python: the file is not analysed
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

## Syntax of a newer Python
kernelint parses with the `ast` module of the Python it runs on. Python 3.12's f-strings
(PEP 701: the quote reused inside the braces, backslashes, comments) are read anyway under an
older Python: each f-string is taken as a plain string of the same shape, so the rest of the
file is analysed (only what the f-strings hold is not seen). A file that uses other syntax only
a newer Python accepts (PEP 695 type parameters and `type` aliases, Python 3.12; `except*`,
3.11; `except A, B:`, 3.14) is valid code that this kernelint cannot read: it is reported once,
at **info**, as not analysed, with the Python version it needs. Run kernelint with that Python
to check the file.
"""

