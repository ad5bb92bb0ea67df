"""Fixes: every ``tests/fixes/<CODE>_<case>.in.py`` becomes its ``.out.py`` under the real
``kernelint check --fix`` (``--unsafe-fixes`` for rules whose fix is unsafe), and the fixed file
checks clean with every rule on."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernelint.edits import drop_suppression, remove_keyword
from test_cli import run_kernelint, write

FIXES = Path(__file__).parent / "fixes"
CASES = sorted(p.name[: -len(".in.py")] for p in FIXES.glob("*.in.py"))
UNSAFE = {"KL107"}


def test_every_case_has_an_expected_output():
    assert CASES, "no fix cases found"
    for case in CASES:
        assert (FIXES / f"{case}.out.py").is_file(), case
    assert {case.split("_")[0] for case in CASES} >= {"KL003", "KL102", "KL104", "KL107"}


@pytest.mark.parametrize("case", CASES)
def test_fix_turns_in_into_out_and_relints_clean(tmp_path, case):
    code = case.split("_")[0]
    target = tmp_path / "kernel.py"
    shutil.copyfile(FIXES / f"{case}.in.py", target)
    before = run_kernelint("check", "--select", "ALL", "--no-cache", "kernel.py", cwd=tmp_path)
    assert before.returncode == 1 and f" {code} " in before.stdout, before.stdout + before.stderr

    flags = ["--unsafe-fixes"] if code in UNSAFE else []
    result = run_kernelint("check", "--select", "ALL", "--no-cache", "--fix", *flags, "kernel.py", cwd=tmp_path)
    assert target.read_text(encoding="utf-8") == (FIXES / f"{case}.out.py").read_text(encoding="utf-8")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Fixed" in result.stderr
    again = run_kernelint("check", "--select", "ALL", "--no-cache", "kernel.py", cwd=tmp_path)
    assert again.returncode == 0 and again.stdout == "", again.stdout


def test_unsafe_fix_needs_unsafe_fixes(tmp_path):
    shutil.copyfile(FIXES / "KL107_launch_keyword.in.py", tmp_path / "kernel.py")
    result = run_kernelint("check", "--fix", "--no-cache", "kernel.py", cwd=tmp_path)
    assert result.returncode == 1 and "KL107" in result.stdout
    assert "1 more fix available with --unsafe-fixes" in result.stderr
    assert (tmp_path / "kernel.py").read_text() == (FIXES / "KL107_launch_keyword.in.py").read_text()


def test_show_fixes_prints_a_diff_and_changes_nothing(tmp_path):
    shutil.copyfile(FIXES / "KL104_gelu.in.py", tmp_path / "kernel.py")
    result = run_kernelint("check", "--show-fixes", "--no-cache", "kernel.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "+++ b/kernel.py" in result.stdout
    assert "+    cdf = 0.5 * (1.0 + tl.math.erf((x * 0.7071067811865476).to(tl.float32)))" in result.stdout
    assert (tmp_path / "kernel.py").read_text() == (FIXES / "KL104_gelu.in.py").read_text()


def test_fix_on_stdin_writes_the_fixed_buffer(tmp_path):
    import subprocess
    import sys

    source = (FIXES / "KL104_gelu.in.py").read_text()
    result = subprocess.run([sys.executable, "-m", "kernelint", "check", "-", "--fix", "--stdin-filename",
                             "kernel.py"], input=source, cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (FIXES / "KL104_gelu.out.py").read_text()


def test_no_fix_when_the_dtype_is_a_variable(tmp_path):
    write(tmp_path, {"kernel.py": (FIXES / "KL102_stride_table.in.py").read_text().replace(
        "strides = torch.tensor([a.stride(0) for a in groups], dtype=torch.int32",
        "INDEX = torch.int32\n    strides = torch.tensor([a.stride(0) for a in groups], dtype=INDEX")})
    result = run_kernelint("check", "--fix", "--no-cache", "kernel.py", cwd=tmp_path)
    assert result.returncode == 1 and "KL102" in result.stdout


def test_drop_suppression_keeps_other_codes():
    fix = drop_suppression("y = 2  # noqa: E501, KL002\n", 4, 7, "KL002", ours=False)
    [edit] = fix.edits
    assert (edit.line, edit.col, edit.end_line, edit.end_col, edit.replacement) == (4, 7, 4, 26, "# noqa: E501")


def test_remove_keyword_never_deletes_a_comment():
    import ast

    source = "f(a,  # why\n  B=1)\n"
    call = ast.parse(source).body[0].value
    edit = remove_keyword(call, call.keywords[0], source.splitlines())
    assert edit is None or "#" not in _span(source, edit)


def _span(source: str, edit) -> str:
    lines = source.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: edit.line - 1]) + edit.col
    end = sum(len(line) for line in lines[: edit.end_line - 1]) + edit.end_col
    return source[start:end]


def test_json_carries_the_fix_from_a_fresh_run_and_from_the_cache(tmp_path):
    import json

    shutil.copyfile(FIXES / "KL107_launch_keyword.in.py", tmp_path / "kernel.py")
    runs = [json.loads(run_kernelint("check", "--format", "json", "kernel.py", cwd=tmp_path).stdout)
            for _ in range(2)]  # the second run reads the cache
    assert runs[0] == runs[1]
    [finding] = [f for f in runs[0] if f["code"] == "KL107"]
    assert finding["fix"]["applicability"] == "unsafe"
    assert finding["fix"]["edits"] == [
        {"line": 26, "col": 50, "end_line": 26, "end_col": 61, "replacement": ""}]
    assert (tmp_path / ".kernelint_cache").is_dir()


def test_text_output_says_what_is_fixable(tmp_path):
    shutil.copyfile(FIXES / "KL107_launch_keyword.in.py", tmp_path / "unsafe.py")
    shutil.copyfile(FIXES / "KL104_gelu.in.py", tmp_path / "safe.py")
    lines = run_kernelint("check", "unsafe.py", "safe.py", cwd=tmp_path).stdout.splitlines()
    assert lines[-2:] == ["Found 2 problems.",
                          "(1 fixable with --fix, 1 more with --fix --unsafe-fixes; --show-fixes shows the changes)"]
    clean = run_kernelint("check", "unsafe.py", "--ignore", "KL107", cwd=tmp_path)
    assert clean.stdout == ""
