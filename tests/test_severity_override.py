"""``[tool.kernelint.severity]``: a project's per-rule severity, honoured by every front end
(the CLI's text, json, sarif and github output, --statistics and --fail-on; flake8; pylint; the
language server's diagnostics are checked in test_server.py)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kernelint.findings import Severity
from kernelint.rules import find_rule
from kernelint.severities import configured, resulting
from test_baseline import HEADER, kernel
from test_cli import run_kernelint, write

KERNEL = HEADER + kernel("gelu")  # one KL104, an error by default
OVERRIDE = '[tool.kernelint.severity]\nKL104 = "warning"\n'


@pytest.fixture
def project(tmp_path):
    return write(tmp_path, {"pyproject.toml": OVERRIDE, "k.py": KERNEL})


def _check(root, *args):
    result = run_kernelint("check", "--no-cache", *args, "k.py", cwd=root)
    assert result.returncode in (0, 1), result.stderr
    return result


def test_every_cli_output_carries_the_configured_severity(project):
    assert [f["severity"] for f in json.loads(_check(project, "--format", "json").stdout)] == ["warning"]
    sarif = json.loads(_check(project, "--format", "sarif").stdout)
    assert [r["level"] for r in sarif["runs"][0]["results"]] == ["warning"]
    assert _check(project, "--format", "github").stdout.startswith("::warning ")
    assert "KL104 [warning]" in _check(project, "--output-format", "full").stdout
    assert "[warning]" in _check(project, "--statistics").stdout


def test_fail_on_follows_the_configured_severity(project):
    assert _check(project, "--fail-on", "error").returncode == 0
    assert _check(project, "--fail-on", "warning").returncode == 1
    (project / "pyproject.toml").write_text("[tool.kernelint]\n")
    assert _check(project, "--fail-on", "error").returncode == 1


def test_standard_input_and_sub_projects_follow_their_own_configuration(tmp_path):
    write(tmp_path, {"pyproject.toml": OVERRIDE, "a/k.py": KERNEL, "b/k.py": KERNEL,
                     "b/pyproject.toml": '[tool.kernelint.severity]\nerf-needs-fp32 = "info"\n'})
    result = run_kernelint("check", "--no-cache", "--format", "json", ".", cwd=tmp_path)
    assert sorted((f["path"], f["severity"]) for f in json.loads(result.stdout)) == [
        ("a/k.py", "warning"), ("b/k.py", "info")]
    stdin = subprocess.run([sys.executable, "-m", "kernelint", "check", "--format", "json", "-",
                            "--stdin-filename", "b/k.py"], input=KERNEL, cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert [f["severity"] for f in json.loads(stdin.stdout)] == ["info"]


def test_an_exact_key_beats_a_prefix_and_a_longer_prefix_a_shorter():
    rule = find_rule("KL104")
    assert configured((("KL1", Severity.INFO), ("erf-needs-fp32", Severity.WARNING)), rule) is Severity.WARNING
    assert configured((("KL10", Severity.WARNING), ("KL1", Severity.INFO)), rule) is Severity.WARNING
    assert configured((("KL2", Severity.INFO),), rule) is None


def test_a_quieter_case_of_the_rule_is_never_raised():
    rule = find_rule("KL303")  # error, with an info-level case its record does not back more strongly
    assert Severity.INFO in rule.other_severities
    assert resulting(rule.severity, rule, Severity.WARNING) is Severity.WARNING
    assert resulting(Severity.INFO, rule, Severity.WARNING) is Severity.INFO
    assert resulting(Severity.INFO, rule, Severity.ERROR) is Severity.INFO
    assert resulting(rule.severity, rule, None) is rule.severity


@pytest.mark.parametrize("table, message", [
    ('KL104 = "fatal"', "severity of 'KL104' must be one of 'error', 'warning', 'info'"),
    ('KL1O4 = "info"', "unknown rule selector 'KL1O4' (did you mean 'KL104'?)"),
])
def test_a_bad_severity_table_is_a_configuration_error(tmp_path, table, message):
    write(tmp_path, {"pyproject.toml": f"[tool.kernelint.severity]\n{table}\n", "k.py": KERNEL})
    result = run_kernelint("check", "k.py", cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert message in run_kernelint("check", "--show-settings", "k.py", cwd=tmp_path).stderr


def test_show_settings_lists_the_overrides(project):
    assert "severity: {'KL104': 'warning'}" in run_kernelint("check", "--show-settings", "k.py", cwd=project).stdout


def _run(*args, cwd):
    result = subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.mark.full  # the real pylint/flake8: the full tier
def test_pylint_reports_the_configured_severity_as_its_own_message(project):
    pytest.importorskip("pylint")
    result = _run("pylint", "--load-plugins=kernelint.pylint_plugin", "--disable=all",
                  "--enable=erf-needs-fp32,erf-needs-fp32-warning,erf-needs-fp32-info",
                  "--output-format=json2", "--persistent=n", "k.py", cwd=project)
    messages = json.loads(result.stdout)["messages"]
    assert [(m["messageId"], m["symbol"], m["type"]) for m in messages] == [
        ("W7204", "erf-needs-fp32-warning", "warning")]


@pytest.mark.full  # the real pylint/flake8: the full tier
def test_flake8_still_reports_the_finding(project):
    pytest.importorskip("flake8")
    result = _run("flake8", "--select", "KL", "k.py", cwd=project)
    assert result.returncode == 1 and "KL104" in result.stdout
