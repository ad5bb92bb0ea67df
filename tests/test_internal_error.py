"""A rule that raises is reported as KL002 and does not stop the other rules."""
from __future__ import annotations

from fake_rules import BrokenRule, FlagRule, register
from kernelint.engine import Options, check_source

SOURCE = "import triton\nflag()\n"


def test_raising_rule_gives_kl002_and_other_rules_still_report(monkeypatch):
    register(monkeypatch, FlagRule, BrokenRule)
    codes = frozenset({"KL002", FlagRule.code, BrokenRule.code})
    findings = check_source("t.py", SOURCE, Options(codes))
    assert {(f.line, f.code) for f in findings} == {(1, "KL002"), (2, "KL990")}
    [internal] = [f for f in findings if f.code == "KL002"]
    assert "KL991" in internal.message and "RuntimeError: boom" in internal.message


def test_a_real_rule_whose_check_raises(monkeypatch):
    register(monkeypatch, FlagRule)

    def explode(self, node, ctx):
        raise ValueError("bad node")

    monkeypatch.setattr(FlagRule, "check", explode)
    findings = check_source("t.py", SOURCE, Options(frozenset({"KL002", FlagRule.code})))
    assert [(f.code, f.line) for f in findings] == [("KL002", 1)]
    assert "KL990 (flagged-call) failed: ValueError: bad node" in findings[0].message


def test_without_kl002_selected_the_failure_is_silent(monkeypatch):
    register(monkeypatch, FlagRule, BrokenRule)
    findings = check_source("t.py", SOURCE, Options(frozenset({FlagRule.code, BrokenRule.code})))
    assert [(f.line, f.code) for f in findings] == [(2, "KL990")]


def test_kl002_can_be_suppressed_file_wide(monkeypatch):
    register(monkeypatch, BrokenRule)
    source = "import triton\n# kernelint: disable-file=internal-error\nflag()\n"
    assert check_source("t.py", source, Options(frozenset({"KL002", "KL003", BrokenRule.code}))) == []
