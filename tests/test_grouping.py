"""One finding per cause (issue 21): a rule's reports with the same ``Report(cause=...)`` in one
file are one finding at the first site with the others attached, in the engine and in every
front end (JSON ``related``, SARIF ``relatedLocations`` and ``codeFlows``, flake8/GitHub: the
first site, the count in the message), and a baseline entry matches the cause, not each site.

The rule here is a test rule (the grouping is engine behaviour): ``flag(x)`` reports each call,
its cause the argument's text, with one located and one unlocated fact."""
from __future__ import annotations

import ast
import json
from pathlib import Path

from fake_rules import FlagRule, register
from kernelint.engine import Options, check_source
from kernelint.findings import Confidence, Edit, Finding, Fix, Severity
from kernelint.grouping import group_by_cause
from kernelint.output import github, json_format, sarif
from kernelint.rules import Because, Report
from kernelint.sources import Sources


class CauseRule(FlagRule):
    code = "KL992"
    name = "flagged-cause"

    def check(self, node, ctx):
        if isinstance(node.func, ast.Name) and node.func.id == "flag" and node.args:
            cause = ast.unparse(node.args[0])
            yield Report(node, f"flag({cause}) called", cause=cause,
                         facts=(Because(f"`{cause}` is flagged", node.args[0]), Because("flags are bad")))


SOURCE = "import triton\n\nflag(a)\nflag(b)\nflag(a)\nflag(a)\n"
OPTIONS = Options(frozenset({"KL992", "KL003"}))


def _check(monkeypatch, source: str = SOURCE) -> list[Finding]:
    register(monkeypatch, CauseRule)
    return check_source("ops.py", source, OPTIONS)


def test_one_cause_is_one_finding_with_the_other_sites_related(monkeypatch):
    a, b = _check(monkeypatch)
    assert (a.line, [s.line for s in a.related], a.cause) == (3, [5, 6], "a")
    assert (b.line, b.related) == (4, ())
    assert [s.message for s in a.related] == ["flag(a) called"] * 2
    assert a.shown_message == "flag(a) called (and 2 more: lines 5, 6)"
    assert b.shown_message == b.message


def test_facts_are_kept_once_with_their_places(monkeypatch):
    a, _ = _check(monkeypatch)
    assert [(f.text, f.site.line if f.site else None) for f in a.facts] == [
        ("`a` is flagged", 3), ("flags are bad", None), ("`a` is flagged", 5), ("`a` is flagged", 6)]


def test_a_suppressed_site_is_neither_reported_nor_counted(monkeypatch):
    b, a = _check(monkeypatch, SOURCE.replace("flag(a)\nflag(b)", "flag(a)  # noqa: KL992\nflag(b)"))
    assert (b.cause, a.cause) == ("b", "a")
    assert (a.line, [s.line for s in a.related]) == (5, [6])


def _finding(line, severity=Severity.WARNING, cause="c", fix=None):
    return Finding("f.py", line, 1, line, 2, "KL900", "x", severity, Confidence.HIGH, f"at {line}", fix, cause=cause)


def test_the_most_severe_site_leads_and_fixes_merge():
    def fix(line, safe):
        return Fix("t", (Edit(line, 0, line, 1, "y"),), safe)

    lead, alone = group_by_cause([_finding(3, fix=fix(3, True)), _finding(5, Severity.ERROR, fix=fix(5, False)),
                                  _finding(7, cause=None)])
    assert (lead.line, [s.line for s in lead.related]) == (5, [3])
    assert [e.line for e in lead.fix.edits] == [5, 3] and not lead.fix.safe
    assert alone.line == 7 and not alone.related


def _sources(path: Path) -> Sources:
    sources = Sources()
    sources.add(str(path), path.read_text())
    return sources


def test_json_sarif_and_github_carry_the_other_sites_and_facts(monkeypatch, tmp_path):
    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    register(monkeypatch, CauseRule)
    findings = check_source(str(path), SOURCE, OPTIONS)
    first = json.loads(json_format.render(findings, []))[0]
    assert [r["line"] for r in first["related"]] == [5, 6]
    assert first["facts"][0]["location"]["line"] == 3 and first["facts"][1]["location"] is None
    monkeypatch.chdir(tmp_path)
    result = json.loads(sarif.render(findings, [CauseRule], sources=_sources(path)))["runs"][0]["results"][0]
    assert [loc["physicalLocation"]["region"]["startLine"] for loc in result["relatedLocations"]] == [5, 6]
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [s["location"]["physicalLocation"]["region"]["startLine"] for s in steps] == [3, 5, 6]
    assert result["message"]["text"] == "flag(a) called (and 2 more: lines 5, 6) Why: flags are bad."
    annotation = github.render(findings, [CauseRule], sources=_sources(path)).splitlines()[0]
    assert "line=3," in annotation and annotation.endswith("flag(a) called (and 2 more: lines 5, 6)")


def test_flake8_reports_the_first_site_with_the_count(monkeypatch, tmp_path):
    from kernelint.flake8_plugin import KernelintFlake8

    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    (tmp_path / "pyproject.toml").write_text("[tool.kernelint]\nselect = ['KL992']\n")
    register(monkeypatch, CauseRule)
    plugin = KernelintFlake8(ast.parse(SOURCE), SOURCE.splitlines(keepends=True), str(path))
    assert [(line, message) for line, _, message, _ in plugin.run()] == [
        (3, "KL992 flag(a) called (and 2 more: lines 5, 6)"), (4, "KL992 flag(b) called")]


def test_a_baseline_entry_covers_the_cause_not_each_site(monkeypatch, tmp_path):
    from kernelint import baseline

    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    register(monkeypatch, CauseRule)
    findings = check_source(str(path), SOURCE, OPTIONS)
    baseline.write(tmp_path / "base.json", findings, _sources(path))
    assert len(json.loads((tmp_path / "base.json").read_text())["findings"]) == 2
    # Lines added above, the first site of `a` gone and two new sites of it: the same causes.
    edited = "import triton\n# a comment\n\nflag(b)\nflag(a)\nflag(a)\nflag(a)\n"
    path.write_text(edited)
    again = check_source(str(path), edited, OPTIONS)
    assert baseline.new_findings(again, tmp_path / "base.json", _sources(path)) == []
    # A new cause is new.
    path.write_text(edited + "flag(c)\n")
    new = baseline.new_findings(check_source(str(path), edited + "flag(c)\n", OPTIONS),
                                tmp_path / "base.json", _sources(path))
    assert [f.cause for f in new] == ["c"]


def test_text_counts_the_other_sites_and_shows_facts_on_request(monkeypatch, tmp_path):
    from kernelint.output import text

    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    register(monkeypatch, CauseRule)
    findings = check_source(str(path), SOURCE, OPTIONS)
    concise = text.render(findings, [], style="concise").splitlines()
    assert concise[0].endswith("KL992 flag(a) called (and 2 more: lines 5, 6) [flagged-cause]")
    assert not any("why:" in line for line in concise)
    with_facts = text.render(findings, [], style="concise", show_facts=True).splitlines()
    assert with_facts[1:5] == ["  why: `a` is flagged (3)", "  why: flags are bad",
                               "  why: `a` is flagged (5)", "  why: `a` is flagged (6)"]
    full = text.render(findings, [], style="full", sources=_sources(path), show_facts=True)
    assert "= same cause: 2 more: lines 5, 6" in full and "= why: flags are bad" in full


def test_grouped_sarif_is_valid_against_the_schema(monkeypatch, tmp_path):
    import pytest

    from conftest import ROOT

    schema_path = ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
    if not schema_path.is_file():
        pytest.skip("SARIF schema not found beside the clone")
    jsonschema = pytest.importorskip("jsonschema")
    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    register(monkeypatch, CauseRule)
    monkeypatch.chdir(tmp_path)
    log = json.loads(sarif.render(check_source(str(path), SOURCE, OPTIONS), [CauseRule], sources=_sources(path)))
    assert log["runs"][0]["results"][0]["relatedLocations"]
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(log))
    assert not errors, errors[:3]
