"""Default-on by measured precision (issue 21): a rule is on by default only where its corpus
precision, (true + latent) / judged, is at least 90%, or where the corpus gave it no finding and
its reference pair reproduced; the figures come from the judged table the regression benchmark
pins, and that benchmark reports a lost true finding and a new unjudged one."""
from __future__ import annotations

import importlib.util
import json

import pytest

from conftest import ROOT
from kernelint import precision
from kernelint.rules import all_rules

_SPEC = importlib.util.spec_from_file_location("corpus_benchmark", ROOT / "benchmarks" / "corpus.py")
corpus = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(corpus)


@pytest.mark.parametrize("rule", [r for r in all_rules() if r.default_enabled], ids=lambda r: r.code)
def test_a_default_on_rule_meets_the_precision_policy(rule):
    assert precision.policy_problem(rule) is None


def test_the_policy_refuses_a_default_on_rule_below_the_threshold(monkeypatch):
    rule = next(r for r in all_rules() if r.code == "KL126")
    data = json.loads(json.dumps(precision._data()))
    data["rules"]["KL126"] = {"judged": 10, "true": 8, "latent": 0, "false": 2, "useless": 0}
    monkeypatch.setattr(precision, "_data", lambda: data)
    assert "80% (8/10)" in precision.policy_problem(rule)
    del data["rules"]["KL126"]
    assert "never measured" in precision.policy_problem(rule)


def test_the_figures_of_the_default_set_are_the_judged_tables():
    """corpus_precision.json cannot drift from the table the benchmark pins."""
    figures = corpus.precision_figures(corpus.read_judged(corpus.JUDGED))
    for rule in all_rules():
        if not rule.default_enabled or rule.code.startswith("KL0"):
            continue
        found = precision.of(rule.code)
        expected = figures.get(rule.code)
        if expected is None:
            assert found is not None and found.judged == 0, rule.code
        else:
            assert (found.judged, found.good) == (expected["judged"], expected["true"] + expected["latent"]), rule.code


def _row(line, verdict, rule="KL900"):
    return {"repository": "repo", "commit": "c1", "file": "k.py", "line": line, "rule": rule,
            "verdict": verdict, "reason": ""}


def test_the_benchmark_reports_a_lost_true_finding_and_a_new_unjudged_one():
    judged = [_row(10, "true"), _row(20, "latent"), _row(30, "false")]
    lost, new, still_false = corpus.compare(judged, {("repo", "k.py", 10, "KL900"), ("repo", "k.py", 30, "KL900"),
                                                     ("repo", "k.py", 40, "KL900")}, {"repo": "c1"})
    assert [r["line"] for r in lost] == [20]
    assert new == [("repo", "k.py", 40, "KL900")]
    assert [r["line"] for r in still_false] == [30]
    assert corpus.compare(judged, {("repo", "k.py", 10, "KL900"), ("repo", "k.py", 20, "KL900")},
                          {"repo": "c1"})[:2] == ([], [])


def test_the_benchmark_skips_a_repository_at_another_commit():
    lost, new, _ = corpus.compare([_row(10, "true")], set(), {"repo": "c2"})
    assert lost == [] and new == []


def test_every_judged_row_has_a_verdict_and_a_reason():
    rows = corpus.read_judged(corpus.JUDGED)
    assert rows and all(r["verdict"] != "unjudged" and r["reason"] for r in rows)
