"""Each reference pair: kernelint reports exactly the marked lines of bad.py, nothing in good.py."""
from __future__ import annotations

import difflib

import pytest

from conftest import pair_dirs
from expectations import expected_findings, read, reported
from kernelint.rules import find_rule

PAIRS = pair_dirs()


def _code(pair) -> str:
    return pair.name.split("_", 1)[0]


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_bad_reports_exactly_the_marked_lines(pair):
    source = read(pair / "bad.py")
    expected = expected_findings(source)
    assert expected, f"{pair.name}/bad.py marks no expected finding"
    assert _code(pair) in {code for _, code in expected}
    assert reported(source, _code(pair)) == expected


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_good_is_clean(pair):
    source = read(pair / "good.py")
    assert not expected_findings(source)
    assert reported(source, _code(pair)) == set()


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_pair_folder_names_a_real_rule(pair):
    code, name = pair.name.split("_", 1)
    rule = find_rule(code)
    assert rule is not None, f"{pair.name}: no rule {code}"
    assert rule.name == name.replace("_", "-")
    assert pair.parent.name == rule.dsl


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_bad_and_good_differ_only_a_little(pair):
    bad = read(pair / "bad.py").splitlines()
    good = read(pair / "good.py").splitlines()
    changed = [l for l in difflib.unified_diff(bad, good, lineterm="", n=0)
               if l[:1] in "+-" and not l.startswith(("+++", "---"))]
    assert changed, "bad.py and good.py are identical"
    assert len(changed) <= max(12, len(bad) // 5), "\n".join(changed)
