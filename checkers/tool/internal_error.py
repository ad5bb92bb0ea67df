"""KL002 internal-error: A rule crashed on this file; the other rules still ran."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.rules import Rule


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

