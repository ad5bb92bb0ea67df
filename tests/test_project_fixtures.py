"""Fixture projects: several modules (kernel, launcher, allocation, importer) checked together.
Each folder under ``tests/projects/`` is a project; its files carry inline markers
(``# expect: KL114``, ``# ok: KL114``), and kernelint must report exactly the expected lines
of the codes the markers name, with every file checked and the facts read across modules."""
from __future__ import annotations

from pathlib import Path

import pytest

from fixture_files import markers
from kernelint import runner
from kernelint.config import Settings

PROJECTS = Path(__file__).parent / "projects"


def _markers(root: Path) -> dict[str, set[tuple[str, int, str]]]:
    found: dict[str, set] = {}
    for path in sorted(root.rglob("*.py")):
        for kind, sites in markers(path.read_text(encoding="utf-8")).items():
            found.setdefault(kind, set()).update((str(path), line, code) for line, code in sites)
    return found


@pytest.mark.parametrize("project", sorted(p.name for p in PROJECTS.iterdir() if p.is_dir()))
def test_project_reports_exactly_its_marked_lines(project):
    root = PROJECTS / project
    marks = _markers(root)
    codes = tuple(sorted({code for sites in marks.values() for _, _, code in sites}))
    assert codes, f"{project} has no markers"
    files = [str(p) for p in sorted(root.rglob("*.py"))]
    findings = runner.check_groups({Settings(select=codes): files}, jobs=1, use_cache=False)
    # Each site where it is: a cause's other sites may be in other files (grouping.project_cause).
    reported = {(f.path, f.line, f.code) for f in findings} | {(s.path, s.line, f.code) for f in findings for s in f.related}
    assert reported - marks["todo-ok"] == marks["expect"]
    assert not reported & marks["ok"]


def test_every_project_has_a_reported_and_a_silent_case_per_code():
    """Each code with fixture projects has at least one expected finding and one silent case."""
    expect, ok = set(), set()
    for root in PROJECTS.iterdir():
        if root.is_dir():
            marks = _markers(root)
            expect |= {code for _, _, code in marks["expect"]}
            ok |= {code for _, _, code in marks["ok"]}
    assert expect == ok
