"""KL126's cuTile pair (benchmarks/kl126_cutile: the reference layout holds one pair per rule, in
the rule's home DSL): kernelint reports exactly the marked lines of its bad.py and nothing in its
good.py, and its H200 run is committed with its log."""
from __future__ import annotations

import json
from pathlib import Path

from expectations import expected_findings, read, reported

ROOT = Path(__file__).resolve().parents[1]
PAIR = ROOT / "benchmarks" / "kl126_cutile" / "cutile" / "KL126_grid_axis_over_65535"
RUN = ROOT / "reference_kernels" / "evidence" / "runs" / "KL126-cutile" / "2026-12-01-h200-issue20-KL126-cutile"


def test_bad_reports_exactly_the_marked_lines():
    source = read(PAIR / "bad.py")
    expected = expected_findings(source)
    assert expected and {code for _, code in expected} == {"KL126"}
    assert reported(source, "KL126") == expected


def test_good_is_clean():
    source = read(PAIR / "good.py")
    assert not expected_findings(source)
    assert reported(source, "KL126") == set()


def test_h200_run_is_committed_with_its_log():
    run = json.loads(RUN.with_suffix(".json").read_text(encoding="utf-8"))
    log = RUN.with_suffix(".log").read_text(encoding="utf-8")
    assert run["complete"] and run["environment"]["gpu"] == "NVIDIA H200" and run["environment"]["cuda_tile"]
    assert run["counts"] == {"reproduced": 1, "not-reproduced": 0, "good-failed": 0, "skipped": 0}
    assert "Grid[1] is too big" in log
