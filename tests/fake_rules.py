"""Test-only rules, added to the registry for one test: suppression and error handling are
engine behaviour and must be tested without depending on what any real rule reports."""
from __future__ import annotations

import ast

import kernelint.engine
import kernelint.rules
from kernelint.findings import Severity
from kernelint.rules import Report, Rule, all_rules

_DOC = """
## What it does
Test rule.

## Why is this bad?
Test rule.

## Example
`flag()`

## Use instead
`other()`
"""


class FlagRule(Rule):
    """Reports every call of a function named ``flag``."""

    code = "KL990"
    name = "flagged-call"
    family = "test"
    dsl = "any"
    severity = Severity.WARNING
    evidence_class = "none"
    summary = "A call of flag()."
    doc = _DOC
    node_types = (ast.Call,)

    def check(self, node, ctx):
        if isinstance(node.func, ast.Name) and node.func.id == "flag":
            yield Report(node, "flag() called")


class BrokenRule(FlagRule):
    """Raises on every call it is shown."""

    code = "KL991"
    name = "broken-rule"

    def check(self, node, ctx):
        raise RuntimeError("boom")


def register(monkeypatch, *extra: type[Rule]) -> None:
    """Append ``extra`` to the registry the engine and ``find_rule`` see, for one test."""
    rules = (*all_rules(), *extra)
    monkeypatch.setattr(kernelint.rules, "all_rules", lambda: rules)
    monkeypatch.setattr(kernelint.engine, "all_rules", lambda: rules)
