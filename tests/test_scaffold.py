"""The scaffold creates every file a new rule needs, and the result is refused by the rule
contract until it is filled in (so a stub can never pass as done)."""
from __future__ import annotations

import importlib.util
import subprocess
import sys

from fixture_files import Fixture
from kernelint.prove.manifest import load_pair
from kernelint.rules import _validate
from rule_contract import contract_problems


def _scaffold(root, *args):
    return subprocess.run([sys.executable, "-m", "kernelint.scaffold", *args, "--root", str(root)],
                          capture_output=True, text=True)


def test_scaffold_creates_a_rule_the_contract_refuses(tmp_path):
    (tmp_path / "checkers").mkdir()
    result = _scaffold(tmp_path, "KL429", "probe-rule", "--evidence-class", "numerics")
    assert result.returncode == 0, result.stderr
    module = tmp_path / "checkers" / "cutile" / "probe_rule.py"
    spec = importlib.util.spec_from_file_location("kernelint.checkers.cutile.probe_rule", module)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    rule = loaded.ProbeRule
    _validate(rule)
    assert (rule.code, rule.name, rule.dsl, rule.default_enabled) == ("KL429", "probe-rule", "cutile", False)
    pair = tmp_path / "reference_kernels" / "cutile" / "KL429_probe_rule"
    manifest = load_pair(pair)
    assert manifest.code == "KL429" and manifest.evidence_class == "numerics"
    assert (pair / "kernelint.toml").read_text(encoding="utf-8").endswith('extend-select = ["KL429"]\n')
    for created in [module, *pair.glob("*.py")]:
        compile(created.read_text(encoding="utf-8"), str(created), "exec")  # every stub is valid Python
    fixtures = [Fixture(p) for p in sorted((tmp_path / "tests" / "fixtures" / "cutile").glob("KL429_*.py"))]
    assert len(fixtures) == 2
    problems = contract_problems(rule, fixtures=fixtures, record={})
    assert any("must report" in p for p in problems), problems  # the stub marks only a todo-expect


def test_scaffold_refuses_to_overwrite_and_bad_codes(tmp_path):
    (tmp_path / "checkers").mkdir()
    assert _scaffold(tmp_path, "KL150", "probe", "--evidence-class", "crash").returncode == 0
    again = _scaffold(tmp_path, "KL150", "probe", "--evidence-class", "crash")
    assert again.returncode == 2 and "would overwrite" in again.stderr
    assert _scaffold(tmp_path, "KL050", "tool-probe", "--evidence-class", "crash").returncode == 2
    assert _scaffold(tmp_path, "KL151", "Bad_Name", "--evidence-class", "crash").returncode == 2
