"""A rule's severity and default follow its committed record (rule-catalog.md): error only for a
reproduced crash/compile/hang/numerics claim, a default-on warning only for a perf median ratio of
at least 1.2x, info and off otherwise. The policy function is tested on synthetic records too."""
from __future__ import annotations

import pytest

from conftest import PAIRS_ROOT
from kernelint.docs import render
from kernelint.evidence import describe, evidence_codes, load_record, policy_problems, record_name, record_names
from kernelint.findings import Severity
from kernelint.rules import Rule, find_rule

CODES = evidence_codes()
#: Every record: the home pairs' (CODES) and further pairs' in other DSLs (``KL126-cutile``).
NAMES = record_names()


def test_every_record_is_readable_and_names_a_rule():
    for code in CODES:
        assert load_record(code) is not None, f"evidence/{code}.json is not valid JSON"
        assert find_rule(code) is not None, f"evidence/{code}.json names no registered rule"


def test_every_committed_record_is_found():
    """evidence_codes() reads the records through the package resources; were that lookup broken
    (a packaging change), every record test below would parametrize over nothing and pass."""
    on_disk = sorted(path.stem for path in (PAIRS_ROOT / "evidence").glob("KL*.json"))
    assert on_disk, "no committed records"
    assert NAMES == on_disk
    assert CODES == [name for name in on_disk if "-" not in name]


@pytest.mark.parametrize("name", [name for name in NAMES if name not in CODES])
def test_a_further_pairs_record_follows_the_rule_too(name):
    """A further pair's record (the rule's pair in another DSL it reads) names its pair, is of the
    rule's class, agrees with the rule's severity as the home record does, and `explain` shows it."""
    record = load_record(name)
    rule = find_rule(record["code"])
    assert rule is not None and record_name(record["code"], record["dsl"]) == name
    assert record["dsl"] in rule.dsls() and record["dsl"] != rule.dsl
    assert (PAIRS_ROOT / record["dsl"] / f"{rule.code}_{rule.name.replace('-', '_')}" / "pair.toml").is_file()
    assert policy_problems(rule, record) == []
    text = render(rule)
    assert f"### The {record['dsl']} pair" in text and record["date"] in text


@pytest.mark.parametrize("code", CODES)
def test_rule_follows_its_record(code):
    record = load_record(code)
    assert record["code"] == code
    assert policy_problems(find_rule(code), record) == []


@pytest.mark.parametrize("code", CODES)
def test_explain_shows_the_record(code):
    text = render(find_rule(code))
    record = load_record(code)
    assert f"**Verdict:** {record['verdict']}" in text
    assert record["date"] in text and record["environment"]["torch"] in text


# --- the policy itself, on synthetic rules and records -----------------------------------------

def fake_rule(evidence_class: str, severity: Severity, on: bool) -> type[Rule]:
    return type("Fake", (Rule,), {"code": "KL999", "name": "fake", "evidence_class": evidence_class,
                                  "severity": severity, "default_enabled": on})


def record(evidence_class: str, verdict: str, **extra) -> dict:
    return {"code": "KL999", "evidence_class": evidence_class, "verdict": verdict, **extra}


ERR, WARN, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@pytest.mark.parametrize("cls", ["crash", "compile", "hang", "numerics"])
def test_failure_classes(cls):
    assert policy_problems(fake_rule(cls, ERR, True), record(cls, "reproduced")) == []
    assert policy_problems(fake_rule(cls, INFO, False), record(cls, "reproduced")) == []
    for verdict in ("not-reproduced", "good-failed"):
        assert policy_problems(fake_rule(cls, ERR, True), record(cls, verdict))
        assert policy_problems(fake_rule(cls, WARN, False), record(cls, verdict))
        assert policy_problems(fake_rule(cls, INFO, True), record(cls, verdict))
        assert policy_problems(fake_rule(cls, INFO, False), record(cls, verdict)) == []


def test_perf_warning_needs_median_ratio_of_1_2():
    assert policy_problems(fake_rule("perf", WARN, True), record("perf", "reproduced", median_ratio=2.9)) == []
    assert policy_problems(fake_rule("perf", WARN, True), record("perf", "reproduced", median_ratio=1.2)) == []
    problems = policy_problems(fake_rule("perf", WARN, True), record("perf", "not-reproduced", median_ratio=1.03))
    assert problems and "median ratio 1.03x" in problems[0]
    assert policy_problems(fake_rule("perf", WARN, False), record("perf", "not-reproduced", median_ratio=1.1))
    assert policy_problems(fake_rule("perf", INFO, False), record("perf", "not-reproduced", median_ratio=0.98)) == []
    assert policy_problems(fake_rule("perf", INFO, True), record("perf", "not-reproduced", median_ratio=0.98))


def test_perf_is_never_an_error_and_a_broken_pair_proves_nothing():
    assert policy_problems(fake_rule("perf", ERR, True), record("perf", "reproduced", median_ratio=5.0))
    assert policy_problems(fake_rule("perf", WARN, True), record("perf", "good-failed"))


def test_class_mismatch_and_skipped():
    assert policy_problems(fake_rule("crash", ERR, True), record("numerics", "reproduced"))
    assert policy_problems(fake_rule("crash", ERR, True), record("crash", "skipped")) == []


def test_describe_names_numbers_machine_and_command():
    text = describe(record(
        "perf", "reproduced", reason="median bad/good time ratio 2.95x >= 1.2x", outcome="median 2.95x",
        summary="Case a: bad 1 ms.", date="2026-11-30T00:00:00+00:00", command="kernelint prove KL999",
        environment={"gpu": "NVIDIA H200", "compute_capability": "9.0", "driver": "580.1", "torch": "2.11.0",
                     "triton": "3.6.0"},
        cases=[{"name": "a", "params": {"M": 4096}, "control": False, "ratio": 2.95,
                "bad": {"outcome": "ok", "time_ms": 0.9, "throughput": 154.0, "throughput_unit": "TFLOP/s"},
                "good": {"outcome": "ok", "time_ms": 0.3, "throughput": 474.0, "throughput_unit": "TFLOP/s"}}]))
    assert "**Verdict:** reproduced (median bad/good time ratio 2.95x >= 1.2x)." in text
    assert "| a | M=4096 | 0.900 | 0.300 | 2.95x | 154.0 TFLOP/s | 474.0 TFLOP/s |" in text
    assert "NVIDIA H200, compute capability 9.0, driver 580.1, torch 2.11.0, triton 3.6.0" in text
    assert "`kernelint prove KL999`" in text
