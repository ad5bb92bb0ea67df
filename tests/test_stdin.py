"""Editor buffers on standard input: ``kernelint check - --stdin-filename PATH``, ``flake8 -
--stdin-display-name PATH`` and ``pylint --from-stdin PATH`` check the text as if it were PATH
(its configuration, per-file ignores and exclusion), and report under that name."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.full  # the real flake8 and pylint: the full tier

from test_cli import write
from test_frontends import STALE, cli_paths, flake8_paths, pylint_paths

CONFIG = (
    "[tool.kernelint]\n"
    'exclude = ["generated/"]\n'
    'per-file-ignores = { "tests/" = ["KL003"] }\n'
)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    # The files on disk are clean: what is reported can only come from standard input.
    return write(tmp_path_factory.mktemp("stdin"), {
        "pyproject.toml": CONFIG, "pkg/mod.py": "x = 1\n", "tests/test_mod.py": "x = 1\n",
        "generated/mod.py": "x = 1\n",
    })


def test_cli_reads_the_buffer_under_the_given_name(project):
    assert cli_paths(project, "-", "--stdin-filename", "pkg/mod.py", stdin=STALE) == {("pkg/mod.py", 3, "KL003")}
    assert cli_paths(project / "pkg", "-", "--stdin-filename", "mod.py", stdin=STALE) == {("mod.py", 3, "KL003")}
    assert cli_paths(project, "-", stdin=STALE) == {("-", 3, "KL003")}


@pytest.mark.parametrize("name, expected", [
    ("pkg/mod.py", {("pkg/mod.py", 3, "KL003")}),
    ("tests/test_mod.py", set()),       # per-file-ignores
    ("generated/mod.py", set()),        # excluded
    ("pkg/new_file.py", {("pkg/new_file.py", 3, "KL003")}),  # need not exist on disk
])
def test_every_front_end_treats_stdin_as_the_named_file(project, name, expected):
    assert cli_paths(project, "--force-exclude", "-", "--stdin-filename", name, stdin=STALE) == expected
    assert flake8_paths(project, "-", "--stdin-display-name", name, stdin=STALE) == expected
    assert pylint_paths(project, "--from-stdin", name, stdin=STALE) == expected


def test_excluded_name_is_checked_without_force_exclude(project):
    found = cli_paths(project, "-", "--stdin-filename", "generated/mod.py", stdin=STALE)
    assert found == {("generated/mod.py", 3, "KL003")}


def test_the_nearest_config_of_the_name_applies(project):
    write(project, {"pkg/nested/pyproject.toml": '[tool.kernelint]\nselect = ["KL001"]\n'})
    assert cli_paths(project, "-", "--stdin-filename", "pkg/nested/mod.py", stdin=STALE) == set()
    assert flake8_paths(project, "-", "--stdin-display-name", "pkg/nested/mod.py", stdin=STALE) == set()


def test_stdin_cannot_be_mixed_with_paths(project):
    from test_cli import run_kernelint

    result = run_kernelint("check", "-", "pkg", cwd=project)
    assert result.returncode == 2 and "cannot be mixed" in result.stderr
