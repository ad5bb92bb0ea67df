"""The found-bug confirmations' control (issue 24): every harness with a checkout declares the
edits that fix its finding, an edit applies only to the line it names (and only once), the
checkout itself is never touched, and a finding counts as cause-shown only when the defect shows
as is and is gone after the fix. The committed H200 control runs say so for every harness."""
from __future__ import annotations

import json
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks" / "found_bugs"))
import harness  # noqa: E402
import run_all  # noqa: E402

SCRIPTS = sorted((ROOT / "benchmarks" / "found_bugs").glob("*__*.py"))
RESULTS = ROOT / "benchmarks" / "found_bugs" / "results"
#: The H200 runs with the fixed-line control: the 8 harnesses with a checkout in /work/corpus, then
#: the two tritonbench ones on a pack of its pre-fix commit (db2155c) from the fetch mirror.
CONTROL_RUNS = [RESULTS / "h200-2026-12-01-fixed-control.json", RESULTS / "h200-2026-12-01-tritonbench-fixed-control.json"]


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_each_harness_declares_its_fix(script):
    bug = run_all.bug_of(script)
    assert bug["fix"] and bug["fix_why"]
    for edit in bug["fix"]:
        assert isinstance(edit["line"], int) and edit["old"] and edit["old"] != edit["new"]
    assert len({edit["line"] for edit in bug["fix"]}) == len(bug["fix"]), "two edits on one line"


def _checkout(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "k.py").write_text("row = tl.program_id(0)\nX += row * row_stride\nrow = tl.program_id(0)\n")
    return repo


def test_a_fix_edits_only_its_line_of_a_copy(tmp_path):
    repo = _checkout(tmp_path)
    bug = {"file": "pkg/k.py", "fix": [{"line": 1, "old": "tl.program_id(0)", "new": "tl.program_id(0).to(tl.int64)"}]}
    copy = harness.apply_fix(repo, bug, tmp_path / "scratch")
    assert (copy / "pkg" / "k.py").read_text() == \
        "row = tl.program_id(0).to(tl.int64)\nX += row * row_stride\nrow = tl.program_id(0)\n"
    assert (repo / "pkg" / "k.py").read_text().startswith("row = tl.program_id(0)\n")


@pytest.mark.parametrize("old", ["tl.program_id(1)", "row"])
def test_a_fix_that_does_not_apply_exactly_once_is_refused(tmp_path, old):
    repo = _checkout(tmp_path)
    bug = {"file": "pkg/k.py", "fix": [{"line": 2, "old": old, "new": "x"}]}
    with pytest.raises(ValueError, match="exactly once"):
        harness.apply_fix(repo, bug, tmp_path / "scratch")


def test_cause_shown_needs_the_defect_as_is_and_not_after_the_fix():
    assert run_all.verdict({"outcome": "confirmed"}, {"outcome": "not-reproduced"}) == "cause-shown"
    assert run_all.verdict({"outcome": "confirmed"}, {"outcome": "confirmed"}).startswith("confirmed, but")
    assert run_all.verdict({"outcome": "confirmed"}, {"outcome": "error"}).startswith("confirmed, but")
    assert run_all.verdict({"outcome": "not-reproduced"}, {"outcome": "not-reproduced"}) == "not-reproduced"
    assert run_all.verdict({"outcome": "confirmed"}, None) == "confirmed, no fixed control"


def test_the_committed_control_runs():
    by_script = {}
    for path in CONTROL_RUNS:
        report = json.loads(path.read_text(encoding="utf-8"))
        assert {"gpu", "driver", "torch", "triton"} <= set(report["environment"])
        assert report["environment"]["gpu"].startswith("NVIDIA"), path.name
        by_script.update({entry["script"]: entry for entry in report["results"] if entry.get("outcome") != "not-run"})
    for script in SCRIPTS:
        assert script.name in by_script, f"{script.name}: no committed run with the control"
        entry = by_script[script.name]
        assert entry["checkout_commit"].startswith(entry["commit"])
        assert entry["fix"] == run_all.bug_of(script)["fix"], f"{script.name}: the fix changed since the run"
        assert entry["outcome"] == run_all.verdict(entry["as-is"], entry["fixed"]) == "cause-shown"
