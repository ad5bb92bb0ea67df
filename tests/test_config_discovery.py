"""Finding and reading the configuration: parsed TOML (never a text search), kernelint.toml,
gitignore-style patterns, errors that name the file and suggest the key meant, and the
``--show-settings`` / ``--show-files`` views."""
from __future__ import annotations

import json

import pytest

from test_cli import run_kernelint, write

STALE = "import triton\n\nx = 1  # noqa: KL002\n"  # KL003 at 3


def codes(root, *args) -> set[tuple[str, str]]:
    result = run_kernelint("check", "--format", "json", "--no-cache", *args, cwd=root)
    assert result.returncode in (0, 1), result.stderr
    return {(f["path"], f["code"]) for f in json.loads(result.stdout)}


@pytest.mark.parametrize("pyproject", [
    '[tool.kernelint]\nignore = ["KL003"]\n',
    '[tool]\nkernelint.ignore = ["KL003"]\n',                       # dotted keys
    'tool = { kernelint = { ignore = ["KL003"] } }\n',               # inline table
    '[tool.kernelint.per-file-ignores]\n"*.py" = ["KL003"]\n',       # only a sub-table
])
def test_every_toml_spelling_of_the_table_is_found(tmp_path, pyproject):
    write(tmp_path, {"pyproject.toml": pyproject, "pkg/mod.py": STALE})
    assert codes(tmp_path, "pkg") == set()


def test_text_mentioning_the_table_is_not_a_configuration(tmp_path):
    """A sub-package's pyproject that only mentions tool.kernelint in a string or a comment does
    not hide the project's settings."""
    write(tmp_path, {
        "pyproject.toml": '[tool.kernelint]\nignore = ["KL003"]\n',
        "pkg/pyproject.toml": '[project]\nname = "pkg"\ndescription = "configured by [tool.kernelint] above"\n'
                              '# [tool.kernelint]\n',
        "pkg/mod.py": STALE,
    })
    assert codes(tmp_path, "pkg") == set()
    shown = run_kernelint("check", "--show-settings", "pkg/mod.py", cwd=tmp_path).stdout
    assert f"configuration: {tmp_path.resolve() / 'pyproject.toml'}" in shown


def test_kernelint_toml_has_top_level_keys_and_wins_in_its_folder(tmp_path):
    write(tmp_path, {
        "pyproject.toml": '[tool.kernelint]\nselect = ["KL001"]\n',
        "kernelint.toml": 'ignore = ["KL003"]\n',
        "mod.py": STALE,
        "other/kernelint.toml": '# every default\n',
        "other/mod.py": STALE,
    })
    assert codes(tmp_path, "mod.py") == set()
    assert codes(tmp_path, "other/mod.py") == {("other/mod.py", "KL003")}


@pytest.mark.parametrize("pyproject, message", [
    (b"[tool.kernelint]\nselect = [\"KL1\"]\n# \xff\xfe\n", "cannot read: not UTF-8"),
    (b"[tool.kernelint\n", "cannot read: invalid TOML"),
    (b"[tool.kernelint]\nextend_select = [\"KL1\"]\n", "did you mean 'extend-select'?"),
    (b"[tool.kernelint]\nselet = [\"KL1\"]\n", "did you mean 'select'?"),
    (b"[tool.kernelint]\nselect = \"KL1\"\n", 'select must be a list of strings, e.g. select = ["KL1"]'),
    (b"[tool.kernelint]\nselect = []\n", "select = [] selects no rule"),
    (b"[tool.kernelint]\nignore = [\"ALL\"]\n", "the selection enables no rule"),
    (b"[tool.kernelint]\nselect = [\"unused-supression\"]\n", "did you mean 'unused-suppression'?"),
    (b"[tool.kernelint.per-file-ignores]\n\"t/*\" = \"KL1\"\n", "t/* must be a list of strings"),
    (b"[tool]\nkernelint = 3\n", "tool.kernelint must be a table"),
])
def test_configuration_errors_name_the_file(tmp_path, pyproject, message):
    write(tmp_path, {"pyproject.toml": pyproject, "mod.py": STALE})
    result = run_kernelint("check", "mod.py", cwd=tmp_path)
    assert result.returncode == 2, result.stdout
    assert message in result.stderr
    assert str(tmp_path.resolve() / "pyproject.toml") in result.stderr


def test_nested_configuration_error_names_the_nested_file(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "[tool.kernelint]\n",
        "mod.py": STALE,
        "sub/pyproject.toml": '[tool.kernelint]\nselect = ["KL9"]\n',
        "sub/mod.py": STALE,
    })
    result = run_kernelint("check", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert f"{tmp_path.resolve() / 'sub' / 'pyproject.toml'}: unknown rule selector 'KL9'" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--select", ""], "--select '' selects no rule"),
    (["--select", ","], "--select '' selects no rule"),
    (["--select", "KL001", "--ignore", "KL0"], "the selection enables no rule"),
])
def test_empty_selection_on_the_command_line_is_an_error(tmp_path, args, message):
    write(tmp_path, {"mod.py": STALE})
    result = run_kernelint("check", "mod.py", *args, cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr


def test_patterns_follow_gitignore(tmp_path):
    write(tmp_path, {
        "pyproject.toml": '[tool.kernelint]\nexclude = ["build*/", "./top.py", "**/gen/*.py", "*.pyi", "!keep.pyi"]\n',
        "top.py": STALE, "pkg/top.py": STALE,
        "build_x/a.py": STALE, "pkg/build2/a.py": STALE,
        "pkg/gen/a.py": STALE, "pkg/gen/deeper/a.py": STALE,
        "stub.pyi": STALE, "keep.pyi": STALE,
    })
    files = run_kernelint("check", "--show-files", cwd=tmp_path).stdout.split()
    assert files == ["keep.pyi", "pkg/gen/deeper/a.py", "pkg/top.py"]


def test_show_settings_lists_what_applies(tmp_path):
    write(tmp_path, {
        "pyproject.toml": '[tool.kernelint]\nextend-select = ["KL202"]\nper-file-ignores = { "tests/" = ["KL1"] }\n'
                          'target-arch = "sm_90"\n',
        "tests/test_k.py": STALE,
    })
    result = run_kernelint("check", "--show-settings", "tests/test_k.py", cwd=tmp_path)
    assert result.returncode == 0
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines())
    assert lines["configuration"] == str(tmp_path.resolve() / "pyproject.toml")
    assert lines["target-arch"] == "sm_90"
    assert "KL202" in lines["selected rules"].split(", ")
    run_here = lines["rules run on this file"].split(", ")
    assert "KL202" in run_here and "KL003" in run_here
    assert not [code for code in run_here if code.startswith("KL1")]


def test_no_python_files_warns_and_passes(tmp_path):
    write(tmp_path, {"docs/readme.md": "text\n"})
    result = run_kernelint("check", "docs", cwd=tmp_path)
    assert result.returncode == 0
    assert "no Python files found" in result.stderr


def test_git_info_exclude_is_honoured(tmp_path):
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    write(tmp_path, {"local_scratch/a.py": STALE, "sub/local_scratch/b.py": STALE, "kept.py": STALE})
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    with (tmp_path / ".git" / "info" / "exclude").open("a") as handle:
        handle.write("local_scratch/\n")
    assert run_kernelint("check", "--show-files", cwd=tmp_path).stdout.split() == ["kept.py"]
    assert run_kernelint("check", "--show-files", "sub", cwd=tmp_path).stdout.split() == []


def test_a_broken_pyproject_that_never_names_kernelint_is_skipped(tmp_path):
    """Only a file that could configure kernelint can break a run: a vendored package's invalid
    pyproject.toml is not kernelint's to judge."""
    write(tmp_path, {"pyproject.toml": '[tool.kernelint]\nignore = ["KL003"]\n',
                     "vendor/pkg/pyproject.toml": "[project\nname = 'broken'\n",
                     "vendor/pkg/mod.py": STALE})
    assert codes(tmp_path, "vendor") == set()
    write(tmp_path, {"vendor/pkg/pyproject.toml": "[tool.kernelint\nselect = ['KL1']\n"})
    result = run_kernelint("check", "vendor", cwd=tmp_path)
    assert result.returncode == 2 and "invalid TOML" in result.stderr
