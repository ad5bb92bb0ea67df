"""Every rule proves itself, and a rule's findings never depend on which other rules run."""
from __future__ import annotations

import ast
import functools

import pytest

from conftest import pair_dirs
from fixture_files import all_fixtures
from kernelint.engine import Options, check_source
from kernelint.findings import Severity
from kernelint.rules import Rule, all_rules
from rule_contract import contract_problems

RULES = [r for r in all_rules() if r.evidence_class != "none"]
CODES = frozenset(r.code for r in all_rules())


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_is_complete(rule):
    assert contract_problems(rule) == []


class _Incomplete(Rule):
    """A default-on error rule with no pair, no fixtures and no record."""

    code = "KL199"
    name = "deliberately-incomplete"
    family = "test"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "crash"
    summary = "test"
    doc = ""


def test_an_incomplete_rule_is_refused():
    problems = contract_problems(_Incomplete, fixtures=[], record={})
    assert len(problems) == 6, problems
    assert any("reference pair" in p for p in problems)
    assert any("must report" in p for p in problems)
    assert any("stay silent" in p for p in problems)
    assert any("without a reproduced evidence record" in p for p in problems)


def test_an_off_by_default_info_rule_needs_no_record():
    class Quiet(_Incomplete):
        severity = Severity.INFO
        default_enabled = False

    problems = contract_problems(Quiet, fixtures=[], record={})
    assert not any("evidence record" in p for p in problems)


def _sources():
    sources = [(f.id, f.source()) for f in all_fixtures()]
    for pair in pair_dirs():
        for name in ("bad.py", "good.py"):
            sources.append((f"{pair.name}/{name}", (pair / name).read_text(encoding="utf-8")))
    return sources


SOURCES = _sources()


#: KL003 is left out: which suppressions are unused depends on the selection by definition.
SELECTION_FREE = [r for r in all_rules() if r.code != "KL003"]


@functools.lru_cache(maxsize=None)
def _tree(index: int) -> ast.Module | None:
    """SOURCES[index] parsed once (as flake8 hands kernelint its tree); None if it does not parse."""
    try:
        return ast.parse(SOURCES[index][1])
    except SyntaxError:
        return None


@functools.lru_cache(maxsize=None)
def _with_every_rule(index: int) -> tuple:
    """The findings of SOURCES[index] with every rule selected, computed once for all rules."""
    path, source = SOURCES[index]
    return tuple(check_source(path, source, Options(CODES)))


@pytest.mark.parametrize("rule", SELECTION_FREE, ids=[r.code for r in SELECTION_FREE])
def test_findings_do_not_depend_on_the_selection(rule):
    """--select CODE and --select ALL give the same findings of CODE on every fixture and pair."""
    for index, (path, source) in enumerate(SOURCES):
        alone = check_source(path, source, Options(frozenset({rule.code})), tree=_tree(index))
        together = [f for f in _with_every_rule(index) if f.code == rule.code]
        assert alone == together, path
