"""Every rule fixture: the findings match the inline markers and the ``.expected`` snapshot."""
from __future__ import annotations

import os

import pytest

from fixture_files import all_fixtures, render, reported_sites

FIXTURES = all_fixtures()
UPDATE = os.environ.get("KERNELINT_UPDATE_FIXTURES") == "1"


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.id for f in FIXTURES])
def test_fixture_matches_its_markers(fixture):
    marks = fixture.marks()
    reported = reported_sites(fixture.findings())
    code_marks = {kind: {m for m in found if m[1] == fixture.code} for kind, found in marks.items()}
    assert reported == code_marks["expect"] | code_marks["todo-ok"], (
        f"missing: {sorted(code_marks['expect'] - reported)}; "
        f"unexpected: {sorted(reported - code_marks['expect'] - code_marks['todo-ok'])}; "
        f"todo-ok no longer reported (remove the marker): {sorted(code_marks['todo-ok'] - reported)}"
    )
    promoted = code_marks["todo-expect"] & reported
    assert not promoted, f"known misses now reported: turn `todo-expect` into `expect` on {sorted(promoted)}"


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f.id for f in FIXTURES])
def test_fixture_output_matches_snapshot(fixture):
    actual = render(fixture.findings())
    if UPDATE or not fixture.snapshot.exists():
        if not UPDATE:
            pytest.fail(f"{fixture.snapshot.name} missing: run with KERNELINT_UPDATE_FIXTURES=1")
        fixture.snapshot.write_text(actual, encoding="utf-8")
    assert actual == fixture.snapshot.read_text(encoding="utf-8")


def test_markers_name_the_fixtures_rule():
    """A marker for another code is never checked (fixtures run their own rule only)."""
    strays = [
        (f.id, line, code) for f in FIXTURES for found in f.marks().values()
        for line, code in found if code != f.code
    ]
    assert not strays
