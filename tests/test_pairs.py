"""Each reference pair: kernelint reports exactly the marked lines of bad.py, nothing in good.py."""
from __future__ import annotations

import difflib
import json
import subprocess
import sys

import pytest

from conftest import PAIRS_ROOT, pair_dirs
from kernelint.prove.manifest import tomllib
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


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_pair_folder_turns_its_rule_on(pair):
    """Its kernelint.toml adds the pair's rule (off by default or not), so that the README's
    `kernelint check reference_kernels` reports every marked line."""
    config = pair / "kernelint.toml"
    assert config.is_file(), (f"{pair.name}: no kernelint.toml; add one with "
                              f'extend-select = ["{_code(pair)}"] (python -m kernelint.scaffold writes it)')
    assert tomllib.loads(read(config)) == {"extend-select": [_code(pair)]}


def _marked_sites() -> set[tuple[str, int, str]]:
    sites = set()
    for pair in PAIRS:
        for side in ("bad.py", "good.py"):
            path = (pair / side).relative_to(PAIRS_ROOT.parent).as_posix()
            sites |= {(path, line, code) for line, code in expected_findings(read(pair / side))}
    return sites


def test_the_readme_first_run_reports_exactly_the_marked_lines():
    """`kernelint check reference_kernels`, the README's first command, as a user runs it: the
    real command, in the repository root, with the repository's own configuration."""
    readme = read(PAIRS_ROOT.parent / "README.md")
    assert "kernelint check reference_kernels\n" in readme
    done = subprocess.run([sys.executable, "-m", "kernelint", "check", "reference_kernels", "--no-cache",
                           "--format", "json"], cwd=PAIRS_ROOT.parent, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    reported = {(f["path"], f["line"], f["code"]) for f in findings}
    reported |= {(f["path"], site["line"], f["code"]) for f in findings for site in f.get("related", [])}
    marked = _marked_sites()
    assert len(marked) >= len(PAIRS), "fewer markers than pairs: the marker reader is broken"
    assert sorted(marked - reported) == [], "marked lines the command does not report"
    assert sorted(reported - marked) == [], "findings on lines without a marker (good.py included)"
