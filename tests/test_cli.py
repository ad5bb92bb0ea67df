"""The real ``kernelint`` command in a subprocess: exit codes, selection, formats, config.

Findings come from the tool rules only (KL001 syntax error, KL003 unused suppression), so the
tests do not depend on what the kernel rules report.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kernelint.rules import all_rules

BROKEN = "import triton\n\n@triton.jit\ndef kernel(x:\n    pass\n"  # KL001 at 4
STALE = "import triton\n\nx = 1  # noqa: KL001\n"  # KL003 at 3 (KL001 reports nothing there)
CLEAN = "import triton\n\nx = 1\n"


def run_kernelint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m kernelint ARGS`` in ``cwd``; asserts no traceback reached the user."""
    result = subprocess.run([sys.executable, "-m", "kernelint", *args], cwd=cwd,
                            capture_output=True, text=True, timeout=120)
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def reported(result: subprocess.CompletedProcess) -> set[tuple[str, int, str]]:
    return {(f["path"], f["line"], f["code"]) for f in json.loads(result.stdout)}


@pytest.fixture
def project(tmp_path) -> Path:
    return write(tmp_path, {"pkg/broken.py": BROKEN, "pkg/stale.py": STALE, "pkg/clean.py": CLEAN})


def check_json(cwd: Path, *args: str) -> set[tuple[str, int, str]]:
    result = run_kernelint("check", "--format", "json", *args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return reported(result)


# --- exit codes ------------------------------------------------------------------------------

def test_findings_exit_1_and_clean_exit_0(project):
    assert run_kernelint("check", "pkg", cwd=project).returncode == 1
    assert run_kernelint("check", "pkg/clean.py", cwd=project).returncode == 0


def test_exit_zero(project):
    result = run_kernelint("check", "pkg", "--exit-zero", cwd=project)
    assert result.returncode == 0 and "KL001" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["check", "pkg", "--select", "KL9"], "unknown rule selector 'KL9'"),
    (["check", "pkg", "--ignore", "not-a-rule"], "unknown rule selector 'not-a-rule'"),
    (["check", "pkg", "--extend-select", "XY1"], "unknown rule selector 'XY1'"),
    (["check", "no/such/path.py"], "no such file or directory: no/such/path.py"),
    (["check", "pkg", "-j", "0"], "--jobs must be at least 1"),
    (["check", "pkg", "--config", "missing.toml"], "config file not found"),
    (["check", "pkg", "--format", "xml"], "invalid choice"),
    (["explain", "KL999"], "unknown rule 'KL999'"),
    ([], "usage:"),
])
def test_usage_errors_exit_2_without_traceback(project, args, message):
    result = run_kernelint(*args, cwd=project)
    assert result.returncode == 2
    assert message in result.stderr + result.stdout


def test_unwritable_output_exits_2(project):
    result = run_kernelint("check", "pkg", "--output", "pkg", cwd=project)
    assert result.returncode == 2 and "cannot write pkg" in result.stderr


# --- selection -------------------------------------------------------------------------------

def test_default_selection(project):
    assert check_json(project, "pkg") == {("pkg/broken.py", 4, "KL001"), ("pkg/stale.py", 3, "KL003")}


@pytest.mark.parametrize("args, codes", [
    (["--select", "KL001"], {"KL001"}),
    (["--select", "syntax-error"], {"KL001"}),
    (["--select", "KL001,KL003"], {"KL001", "KL003"}),
    (["--select", "KL0"], {"KL001", "KL003"}),
    (["--select", "ALL"], {"KL001", "KL003"}),
    (["--ignore", "KL003"], {"KL001"}),
    (["--ignore", "KL0"], set()),
    (["--select", "KL001", "--extend-select", "KL003"], {"KL001", "KL003"}),
    (["--select", "KL0", "--ignore", "syntax-error"], set()),  # KL003 is unused without KL001
])
def test_select_ignore_extend_select(project, args, codes):
    assert {code for _, _, code in check_json(project, "pkg", *args)} == codes


def test_cli_select_overrides_config(project):
    write(project, {"pyproject.toml": '[tool.kernelint]\nselect = ["KL003"]\n'})
    assert {c for *_, c in check_json(project, "pkg")} == set()  # KL003 reports only on selected rules
    assert {c for *_, c in check_json(project, "pkg", "--select", "KL001")} == {"KL001"}


# --- configuration ---------------------------------------------------------------------------

@pytest.mark.parametrize("table, expected", [
    ('select = ["KL001"]', {("pkg/broken.py", 4, "KL001")}),
    ('ignore = ["syntax-error"]', set()),
    ('ignore = ["KL003"]', {("pkg/broken.py", 4, "KL001")}),
    ('select = ["KL001"]\nextend-select = ["KL003"]',
     {("pkg/broken.py", 4, "KL001"), ("pkg/stale.py", 3, "KL003")}),
    ('[tool.kernelint.per-file-ignores]\n"pkg/stale.py" = ["KL003"]', {("pkg/broken.py", 4, "KL001")}),
    ('[tool.kernelint.per-file-ignores]\n"broken.py" = ["KL0"]', {("pkg/stale.py", 3, "KL003")}),
    ('exclude = ["pkg/broken.py"]', {("pkg/stale.py", 3, "KL003")}),
    ('exclude = ["pkg"]', set()),
    ('target-arch = "sm_90"', {("pkg/broken.py", 4, "KL001"), ("pkg/stale.py", 3, "KL003")}),
])
def test_config_from_pyproject(project, table, expected):
    write(project, {"pyproject.toml": f"[tool.kernelint]\n{table}\n"})
    assert check_json(project, "pkg") == expected


def test_nearest_pyproject_above_the_checked_path(project):
    write(project, {"pyproject.toml": '[tool.kernelint]\nignore = ["KL001"]\n'})
    assert check_json(project / "pkg", ".") == set()


def test_explicit_config_file(project):
    write(project, {"other.toml": '[tool.kernelint]\nselect = ["KL001"]\n'})
    assert check_json(project, "pkg", "--config", "other.toml") == {("pkg/broken.py", 4, "KL001")}


@pytest.mark.parametrize("table, message", [
    ("select = [", "cannot read"),
    ('select = ["KL42"]', "unknown rule selector 'KL42'"),
    ('[tool.kernelint.per-file-ignores]\n"*.py" = ["nope-rule"]', "unknown rule selector 'nope-rule'"),
    ("bogus = 1", "unknown key 'bogus'"),
    ("extend_select = []", "unknown key 'extend_select' in the kernelint settings (did you mean 'extend-select'?)"),
    ('select = "KL1"', 'select must be a list of strings, e.g. select = ["KL1"]'),
    ("select = []", "select = [] selects no rule"),
    ('select = ["KL001"]\nignore = ["KL0"]', "the selection enables no rule"),
    ("select = 3", "select must be a list of strings"),
    ("target-arch = 90", "target-arch must look like 'sm_90', not 90"),
])
def test_bad_config_exits_2(project, table, message):
    write(project, {"pyproject.toml": f"[tool.kernelint]\n{table}\n"})
    result = run_kernelint("check", "pkg", cwd=project)
    assert result.returncode == 2 and message in result.stderr


def test_gitignore_is_honoured(tmp_path):
    write(tmp_path, {
        ".gitignore": "generated/\n*_tmp.py\n", "sub/.gitignore": "local.py\n",
        "generated/a.py": STALE, "x_tmp.py": STALE, "sub/local.py": STALE, "sub/kept.py": STALE,
    })
    (tmp_path / ".git").mkdir()
    assert check_json(tmp_path, ".") == {("sub/kept.py", 3, "KL003")}
    # A file named on the command line is checked even when ignored.
    assert check_json(tmp_path, "x_tmp.py") == {("x_tmp.py", 3, "KL003")}


# --- robustness: never a traceback -------------------------------------------------------------

@pytest.mark.parametrize("content", [
    b"", b"\x00\x01\x02\xff\xfe binary", b"import triton\nx = '\xe9\xe8'  # latin-1\n",
    b"import triton\nx = 1\x00\n", b"\xef\xbb\xbfimport triton\nx = 1\n",
    ("import triton\nx = " + "1+" * 50000 + "1\n").encode(),
], ids=["empty", "binary", "non-utf8", "nul-byte", "bom", "deep"])
def test_odd_files_do_not_crash(tmp_path, content):
    write(tmp_path, {"odd.py": content, "stale.py": STALE})
    result = run_kernelint("check", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    found = reported(result)
    assert ("stale.py", 3, "KL003") in found
    assert {code for path, _, code in found if path == "odd.py"} <= {"KL001"}


def test_directory_without_python_files(tmp_path):
    write(tmp_path, {"data/readme.txt": "nothing", "data/empty/.keep": ""})
    result = run_kernelint("check", "data", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "")


def test_syntax_error_is_kl001_at_the_error(project):
    result = run_kernelint("check", "pkg/broken.py", cwd=project)
    assert result.returncode == 1
    assert re.match(r"pkg/broken\.py:4:\d+: KL001 file does not parse", result.stdout)


# --- formats and output ------------------------------------------------------------------------

def test_text_format(project):
    lines = run_kernelint("check", "pkg", cwd=project).stdout.splitlines()
    assert re.fullmatch(r"pkg/broken\.py:4:\d+: KL001 .+ \[syntax-error\]", lines[0])
    assert re.fullmatch(r"pkg/stale\.py:3:8: KL003 .+ \[unused-suppression\]", lines[1])
    assert lines[2] == "Found 2 problems."


def test_json_format_fields(project):
    result = run_kernelint("check", "--format", "json", "pkg", cwd=project)
    findings = json.loads(result.stdout)
    assert [set(f) for f in findings] == [{
        "path", "line", "column", "end_line", "end_column", "code", "name", "severity",
        "confidence", "message", "url", "fix", "related", "facts"}] * 2
    assert findings[1] | {"message": None, "fix": None} == {
        "url": None, "fix": None,  # no docs-url configured: no address
        "path": "pkg/stale.py", "line": 3, "column": 8, "end_line": 3, "end_column": 8,
        "code": "KL003", "name": "unused-suppression", "severity": "warning", "confidence": "high",
        "message": None, "related": [], "facts": [],
    }


def test_github_format(project):
    result = run_kernelint("check", "--format", "github", "pkg", cwd=project)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::error file=pkg/broken.py,line=4,")
    assert lines[1].startswith("::warning file=pkg/stale.py,line=3,endLine=3,col=8,endColumn=8,"
                               "title=KL003 unused-suppression::KL003 ")


def test_sarif_format_is_json(project):
    result = run_kernelint("check", "--format", "sarif", "pkg", cwd=project)
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["KL001", "KL003"]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_output_file(project, fmt):
    result = run_kernelint("check", "pkg", "--format", fmt, "--output", "report.out", cwd=project)
    assert result.returncode == 1 and result.stdout == ""
    assert "KL003" in (project / "report.out").read_text(encoding="utf-8")


def test_output_is_deterministic_and_sorted(tmp_path):
    write(tmp_path, {f"m{i % 7}/f{i}.py": STALE + BROKEN.replace("import triton", "") * (i % 2)
                     for i in range(40)})
    serial = run_kernelint("check", "--format", "json", "-j", "1", ".", cwd=tmp_path).stdout
    parallel = run_kernelint("check", "--format", "json", "-j", "4", ".", cwd=tmp_path).stdout
    assert serial == parallel
    keys = [(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(serial)]
    assert keys == sorted(keys) and len(keys) == 40


# --- rules and explain -------------------------------------------------------------------------

def test_rules_text_lists_every_rule(tmp_path):
    result = run_kernelint("rules", cwd=tmp_path)
    assert result.returncode == 0
    listed = [line.split()[0] for line in result.stdout.splitlines()[1:]]
    assert listed == [rule.code for rule in all_rules()]


def test_rules_json(tmp_path):
    rows = json.loads(run_kernelint("rules", "--format", "json", cwd=tmp_path).stdout)
    assert [row["code"] for row in rows] == [rule.code for rule in all_rules()]
    kl003 = next(row for row in rows if row["code"] == "KL003")
    assert kl003 | {"summary": None} == {
        "code": "KL003", "name": "unused-suppression", "dsl": "any", "family": "tool",
        "severity": "warning", "other_severities": [], "confidence": "high", "default": True,
        "evidence_class": "none", "pylint_id": "W7103", "pylint_symbol": "kernelint-unused-suppression", "summary": None,
        "url": None, "corpus_precision": None,
    }
    assert next(row for row in rows if row["code"] == "KL303")["other_severities"] == ["info"]
    kl126 = next(row for row in rows if row["code"] == "KL126")["corpus_precision"]
    assert kl126["judged"] > 0 and kl126["precision"] >= 0.9 and kl126["source"] == "benchmarks/corpus_judged.csv"


@pytest.mark.parametrize("key", ["KL003", "kl003", "unused-suppression"])
def test_explain_by_code_or_name(tmp_path, key):
    result = run_kernelint("explain", key, cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.startswith("# unused-suppression (KL003)")
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Evidence"):
        assert heading in result.stdout


def test_each_file_follows_its_nearest_config(project):
    write(project, {
        "pyproject.toml": '[tool.kernelint]\nignore = ["KL001"]\n',
        "sub/pyproject.toml": '[tool.kernelint]\nignore = ["KL003"]\n',
        "sub/broken.py": BROKEN, "sub/stale.py": STALE,
        "plain/pyproject.toml": '[project]\nname = "plain"\n',  # no kernelint table: not a config
        "plain/broken.py": BROKEN, "plain/stale.py": STALE,
    })
    assert check_json(project, ".") == {("sub/broken.py", 4, "KL001")}
    assert check_json(project, ".", "--select", "KL001") == {
        ("sub/broken.py", 4, "KL001"), ("pkg/broken.py", 4, "KL001"), ("plain/broken.py", 4, "KL001")}


def test_cli_ignore_adds_to_the_config_ignore(project):
    write(project, {"pyproject.toml": '[tool.kernelint]\nignore = ["KL001"]\nextend-select = ["KL003"]\n'})
    assert check_json(project, "pkg", "--ignore", "KL003") == set()
    write(project, {"pyproject.toml": '[tool.kernelint]\nignore = ["KL003"]\n'})
    assert check_json(project, "pkg", "--ignore", "KL002") == {("pkg/broken.py", 4, "KL001")}
    assert check_json(project, "pkg", "--select", "KL0") == {
        ("pkg/broken.py", 4, "KL001"), ("pkg/stale.py", 3, "KL003")}


def test_bad_target_arch_is_a_usage_error(tmp_path):
    (tmp_path / "k.py").write_text("import triton\n")
    result = subprocess.run([sys.executable, "-m", "kernelint", "check", str(tmp_path), "--target-arch", "hopper"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "target-arch must look like 'sm_90'" in result.stderr
    assert "Traceback" not in result.stderr
