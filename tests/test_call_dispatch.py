"""A rule that names its calls (``Rule.calls``) is shown only those: it must never be able to
report on any other call. Checked by asking each such rule about every call it is *not* shown,
in every fixture, fixture project and reference kernel."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from kernelint.model import FileContext
from kernelint.reading import decode, parse, read_bytes
from kernelint.rules import Report, Rule, all_rules
from kernelint.findings import Severity

ROOT = Path(__file__).resolve().parent.parent
DISPATCHED = [r for r in all_rules() if r.calls]
_WANTED = frozenset(t for r in all_rules() for t in r.node_types)


@functools.lru_cache(maxsize=None)
def _sources() -> tuple[Path, ...]:
    folders = [ROOT / "tests" / "fixtures", ROOT / "tests" / "projects", ROOT / "reference_kernels"]
    return tuple(sorted(p for folder in folders for p in folder.rglob("*.py")))


@functools.lru_cache(maxsize=None)
def _context(path: Path) -> FileContext | None:
    source = decode(read_bytes(str(path)))
    try:
        tree = parse(source, str(path))
    except Exception:  # a fixture of a syntax error: no calls to ask about
        return None
    return FileContext(str(path), source, tree, _WANTED)


def reports_outside_its_calls(rule: type[Rule], ctx: FileContext) -> list[str]:
    """``file:line`` of each report ``rule.check`` makes on a call ``rule.calls`` does not name."""
    shown = {id(call) for call in ctx.calls_to(rule.calls)}
    instance = rule()
    return [f"{ctx.path}:{call.lineno}" for call in ctx.nodes(ast.Call)
            if id(call) not in shown and any(True for _ in instance.check(call, ctx))]


def test_some_rules_name_their_calls():
    assert len(DISPATCHED) >= 20


@pytest.mark.parametrize("rule", DISPATCHED, ids=[r.code for r in DISPATCHED])
def test_rule_reports_only_on_the_calls_it_names(rule):
    missed = [site for path in _sources() if (ctx := _context(path)) is not None
              for site in reports_outside_its_calls(rule, ctx)]
    assert missed == []


class _StoreReporter(Rule):
    """Names ``tl.load`` but reports ``tl.store``: the check above must catch it."""

    code = "KL198"
    name = "store-reporter"
    family = "test"
    dsl = "triton"
    severity = Severity.WARNING
    evidence_class = "none"
    summary = "test"
    doc = ""
    node_types = (ast.Call,)
    calls = frozenset({"triton.language.load"})

    def check(self, node, ctx):
        if ctx.call_name(node) == "triton.language.store":
            yield Report(node, "store")


def test_a_rule_reporting_outside_its_calls_is_caught():
    source = "import triton.language as tl\n\ndef k(p):\n    x = tl.load(p)\n    tl.store(p, x)\n"
    ctx = FileContext("k.py", source, ast.parse(source), _WANTED)
    assert [call.lineno for call in ctx.calls_to(_StoreReporter.calls)] == [4]
    assert reports_outside_its_calls(_StoreReporter, ctx) == ["k.py:5"]


def test_calls_to_keys():
    source = ("import triton.language as tl\nfrom triton.language import load as ld\n"
              "def k(p, x):\n    a = tl.load(p)\n    b = ld(p)\n    c = x.to(tl.float32)\n    d = helper(a)\n")
    ctx = FileContext("k.py", source, ast.parse(source), _WANTED)
    lines = lambda *keys: [call.lineno for call in ctx.calls_to(frozenset(keys))]  # noqa: E731
    assert lines("triton.language.load") == [4, 5]
    assert lines(".load") == [4, 5]
    assert lines(".ld") == [5]
    assert lines(".to") == [6]
    assert lines(".helper", "triton.language.load") == [4, 5, 7]
    assert lines("tl.load", ".float32") == []
