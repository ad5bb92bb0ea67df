"""Per-finding severity: a rule may report a quieter case below its own severity
(``Report(severity=...)``, declared in ``other_severities``), and every output, the exit status,
the cache and both plugins carry the finding's severity, not the rule's.

KL303 is the real user: init + sync but no fence on a barrier a TMA copy completes is info,
init with neither is error."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fake_rules import FlagRule, register
from kernelint.engine import INTERNAL_ERROR, Options, check_source
from kernelint.findings import Severity
from kernelint.rules import Report, _validate, find_rule, pylint_message, pylint_messages
from test_cli import run_kernelint, write

KERNEL = '''import cutlass
import cutlass.cute as cute
from cutlass import Int32, Int64


@cute.kernel
def load(tma_atom: cute.CopyAtom, gA: cute.Tensor, sA: cute.Tensor, nbytes: Int32):
    mbar = cutlass.utils.SmemAllocator().allocate_array(Int64, num_elems=1)
    with cute.arch.elect_one():
        cute.arch.mbarrier_init(mbar, 1)
    cute.arch.sync_threads()
    with cute.arch.elect_one():
        cute.arch.mbarrier_arrive_and_expect_tx(mbar, nbytes)
        cute.copy(tma_atom, gA, sA, tma_bar_ptr=mbar)
    cute.arch.mbarrier_wait(mbar, 0)
'''
UNPUBLISHED = '''

@cute.kernel
def race(mbar: cute.Pointer):
    with cute.arch.elect_one():
        cute.arch.mbarrier_init(mbar, 1)
    cute.arch.mbarrier_arrive(mbar)
    cute.arch.mbarrier_wait(mbar, 0)
'''
INFO_LINE, ERROR_LINE = 10, 21


class QuietFlag(FlagRule):
    """Reports ``flag()`` at its own severity and ``quiet()`` at info."""

    code = "KL992"
    name = "quiet-flag"
    other_severities = (Severity.INFO,)

    def check(self, node, ctx):
        if isinstance(node.func, ast.Name) and node.func.id == "quiet":
            yield Report(node, "quiet() called", severity=Severity.INFO)
        else:
            yield from super().check(node, ctx)


class Undeclared(FlagRule):
    """Reports at a severity it did not declare."""

    code = "KL993"
    name = "undeclared-severity"

    def check(self, node, ctx):
        if isinstance(node.func, ast.Name) and node.func.id == "flag":
            yield Report(node, "flag() called", severity=Severity.INFO)


def test_report_severity_overrides_the_rules(monkeypatch):
    register(monkeypatch, QuietFlag)
    findings = check_source("x.py", "import triton\nflag()\nquiet()\n", Options(frozenset({"KL992"})))
    assert [(f.line, f.severity) for f in findings] == [(2, Severity.WARNING), (3, Severity.INFO)]


def test_an_undeclared_severity_is_an_internal_error_not_a_silent_change(monkeypatch):
    register(monkeypatch, QuietFlag, Undeclared)
    findings = check_source("x.py", "import triton\nflag()\n", Options(frozenset({"KL992", "KL993", INTERNAL_ERROR})))
    assert [(f.code, f.severity) for f in findings if f.code == "KL992"] == [("KL992", Severity.WARNING)]
    [error] = [f for f in findings if f.code == INTERNAL_ERROR]
    assert "KL993" in error.message and "not among the rule's severities" in error.message


def test_other_severities_must_be_quieter_than_the_rule():
    class Louder(FlagRule):
        code = "KL994"
        name = "louder"
        other_severities = (Severity.ERROR,)

    with pytest.raises(TypeError, match="not less severe than warning"):
        _validate(Louder)


def test_pylint_gives_a_quieter_finding_its_own_message():
    rule = find_rule("KL303")
    assert pylint_message(rule) == ("E7403", "mbarrier-init-without-fence")
    assert pylint_message(rule, Severity.INFO) == ("C7403", "mbarrier-init-without-fence-info")
    assert [m[1:] for m in pylint_messages(rule)] == [("E7403", "mbarrier-init-without-fence"),
                                                       ("C7403", "mbarrier-init-without-fence-info")]
    assert pylint_messages(find_rule("KL101")) == [(find_rule("KL101").severity, *pylint_message(find_rule("KL101")))]


@pytest.fixture
def project(tmp_path) -> Path:
    return write(tmp_path, {"kernel.py": KERNEL + UNPUBLISHED, "only_info.py": KERNEL})


def _check(project: Path, *args: str) -> subprocess.CompletedProcess:
    return run_kernelint("check", "--select", "KL303", *args, cwd=project)


def test_json_text_and_statistics_carry_the_findings_severity(project):
    result = _check(project, "--no-cache", "--format", "json", "kernel.py")
    assert [(f["line"], f["severity"]) for f in json.loads(result.stdout)] == [(INFO_LINE, "info"), (ERROR_LINE, "error")]
    assert "[info]" in _check(project, "--no-cache", "--statistics", "kernel.py").stdout


def test_github_and_sarif_levels(project):
    github = _check(project, "--no-cache", "--format", "github", "kernel.py").stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in github] == ["::notice", "::error"]
    sarif = json.loads(_check(project, "--no-cache", "--format", "sarif", "kernel.py").stdout)
    results = sarif["runs"][0]["results"]
    assert [(r["locations"][0]["physicalLocation"]["region"]["startLine"], r["level"]) for r in results] == [
        (INFO_LINE, "note"), (ERROR_LINE, "error")]
    [rule] = [r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "KL303"]
    assert rule["defaultConfiguration"]["level"] == "error"  # the rule's; the result overrides it


def test_fail_on_reads_each_findings_severity(project):
    assert _check(project, "--no-cache", "--fail-on", "error", "only_info.py").returncode == 0
    assert _check(project, "--no-cache", "--fail-on", "warning", "only_info.py").returncode == 0
    assert _check(project, "--no-cache", "only_info.py").returncode == 1  # default: info, any finding
    assert _check(project, "--no-cache", "--fail-on", "error", "kernel.py").returncode == 1


def test_the_cache_keeps_the_findings_severity(project):
    args = ("--format", "json", "kernel.py")
    cold, warm = _check(project, *args), _check(project, *args)
    assert (project / ".kernelint_cache").is_dir()
    assert cold.stdout == warm.stdout
    assert [f["severity"] for f in json.loads(warm.stdout)] == ["info", "error"]


def _tool(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.mark.full  # the real pylint/flake8: the full tier
def test_pylint_and_flake8_report_both_severities(project):
    pytest.importorskip("pylint")
    pytest.importorskip("flake8")
    write(project, {"pyproject.toml": '[tool.kernelint]\nselect = ["KL303"]\n'})
    result = _tool("pylint", "--load-plugins=kernelint.pylint_plugin", "--disable=all",
                   "--enable=mbarrier-init-without-fence,mbarrier-init-without-fence-info",
                   "--output-format=json2", "--persistent=n", "kernel.py", cwd=project)
    messages = json.loads(result.stdout)["messages"]
    assert sorted((m["line"], m["messageId"], m["symbol"], m["type"]) for m in messages) == [
        (INFO_LINE, "C7403", "mbarrier-init-without-fence-info", "convention"),
        (ERROR_LINE, "E7403", "mbarrier-init-without-fence", "error"),
    ]
    flake8 = _tool("flake8", "--select", "KL", "--format", "%(row)d|%(code)s", "kernel.py", cwd=project)
    assert sorted(flake8.stdout.split()) == sorted([f"{INFO_LINE}|KL303", f"{ERROR_LINE}|KL303"])


@pytest.mark.full  # the real pylint/flake8: the full tier
def test_pylint_disables_the_quieter_message_by_its_own_symbol(project):
    pytest.importorskip("pylint")
    write(project, {"pyproject.toml": '[tool.kernelint]\nselect = ["KL303"]\n'})
    result = _tool("pylint", "--load-plugins=kernelint.pylint_plugin", "--disable=all",
                   "--enable=mbarrier-init-without-fence", "--output-format=json2", "--persistent=n",
                   "kernel.py", cwd=project)
    assert [m["line"] for m in json.loads(result.stdout)["messages"]] == [ERROR_LINE]
