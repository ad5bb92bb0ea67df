"""The pull-request gate in a real git repository: baselines that survive moved code, --diff
against a revision from any subdirectory, --fail-on, --statistics, --show-source and colour."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli import run_kernelint, write

if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)

HEADER = "import triton\nimport triton.language as tl\n"


def kernel(name: str, upcast: bool = False) -> str:
    """A GELU kernel; without ``upcast`` its erf gets a half value (KL104, an error)."""
    load = "tl.load(x_ptr + offs, mask=mask)" + (".to(tl.float32)" if upcast else "")
    return (
        f"\n\n@triton.jit\ndef {name}(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < n\n"
        f"    x = {load}\n"
        "    tl.store(y_ptr + offs, x * 0.5 * (1.0 + tl.math.erf(x * 0.7071067811865476)), mask=mask)\n"
    )


def stale(index: int) -> str:
    return f"\nunused_{index} = {index}  # noqa: KL002\n"  # KL003, a warning


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout


@pytest.fixture
def repo(tmp_path) -> Path:
    """A project with 20 findings on its main branch: 10 KL104 errors and 10 KL003 warnings."""
    write(tmp_path, {
        "pyproject.toml": "[tool.kernelint]\n",
        "kernels/gelu.py": HEADER + "".join(kernel(f"gelu_{i}") for i in range(6)) + "".join(stale(i) for i in range(6)),
        "kernels/more/act.py": HEADER + "".join(kernel(f"act_{i}") for i in range(4)) + "".join(stale(i) for i in range(4)),
    })
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "start")
    return tmp_path


def findings(result) -> list[dict]:
    return json.loads(result.stdout)


def test_pull_request_scenario(repo):
    # 1. Record the 20 existing findings.
    before = run_kernelint("check", "--format", "json", ".", cwd=repo)
    assert before.returncode == 1 and len(findings(before)) == 20
    recorded = run_kernelint("check", "--write-baseline", "kernelint-baseline.json", ".", cwd=repo)
    assert recorded.returncode == 0 and "recorded 20 findings" in recorded.stderr
    assert run_kernelint("check", "--baseline", "kernelint-baseline.json", ".", cwd=repo).returncode == 0

    # 2. A change that moves old code (a kernel to the end of its file, the stale lines to the
    #    top, everything re-indented nowhere but shifted by new lines) and adds one new bug.
    gelu = repo / "kernels/gelu.py"
    text = gelu.read_text()
    moved = kernel("gelu_2")
    text = text.replace(moved, "")
    stale_block = "".join(stale(i) for i in range(6))
    text = text.replace(stale_block, "")
    text = HEADER + "\n# Helpers moved up in this change.\n" + stale_block + text[len(HEADER):] + moved
    text += kernel("gelu_new")
    gelu.write_text(text)
    write(repo, {"kernels/more/act.py": (repo / "kernels/more/act.py").read_text().replace(
        HEADER, HEADER + '\n"""Activations."""\n\nSCALE = 0.5\n')})
    git(repo, "commit", "-qam", "move things, add gelu_new")

    gated = run_kernelint("check", "--format", "json", "--baseline", "kernelint-baseline.json", ".", cwd=repo)
    [new] = findings(gated)
    assert gated.returncode == 1
    assert new["code"] == "KL104" and new["path"] == "kernels/gelu.py"
    new_line = gelu.read_text().splitlines()[new["line"] - 1]
    assert "tl.math.erf" in new_line and new["line"] == len(text.splitlines())  # gelu_new's erf line

    # The same gate from a subdirectory, with the baseline named from there.
    inside = run_kernelint("check", "--format", "json", "--baseline", "../kernelint-baseline.json", ".",
                           cwd=repo / "kernels")
    assert [(f["path"], f["code"]) for f in findings(inside)] == [("gelu.py", "KL104")]

    # 3. Fix the new bug: the gate passes.
    gelu.write_text(text.replace(kernel("gelu_new"), kernel("gelu_new", upcast=True)))
    fixed = run_kernelint("check", "--baseline", "kernelint-baseline.json", ".", cwd=repo)
    assert fixed.returncode == 0, fixed.stdout


def test_a_second_copy_of_a_baselined_line_is_new(repo):
    run_kernelint("check", "--write-baseline", "base.json", ".", cwd=repo)
    with (repo / "kernels/gelu.py").open("a") as handle:
        handle.write(stale(0))  # same text as a baselined line: its second occurrence is new
    result = run_kernelint("check", "--format", "json", "--baseline", "base.json", ".", cwd=repo)
    assert [(f["code"], f["line"]) for f in findings(result)] == [("KL003", len((repo / "kernels/gelu.py").read_text().splitlines()))]


def test_bad_baseline_is_a_usage_error(repo):
    write(repo, {"bad.json": "[]"})
    result = run_kernelint("check", "--baseline", "bad.json", ".", cwd=repo)
    assert result.returncode == 2 and "not a kernelint baseline" in result.stderr
    result = run_kernelint("check", "--baseline", "missing.json", ".", cwd=repo)
    assert result.returncode == 2 and "cannot read baseline" in result.stderr


def test_diff_reports_only_changed_lines_from_any_subdirectory(repo):
    act = repo / "kernels/more/act.py"
    lines = act.read_text().splitlines(keepends=True)
    erf_lines = [i for i, line in enumerate(lines) if "tl.math.erf" in line]
    lines[erf_lines[1]] = lines[erf_lines[1]].replace("0.5 *", "0.50 *")  # touch one old finding's line
    act.write_text("".join(lines) + kernel("act_new"))
    write(repo, {"kernels/untracked.py": HEADER + kernel("fresh")})

    expected = {("kernels/more/act.py", erf_lines[1] + 1), ("kernels/more/act.py", len(lines) + 8),
                ("kernels/untracked.py", 10)}
    top = run_kernelint("check", "--format", "json", "--diff", "HEAD", ".", cwd=repo)
    assert {(f["path"], f["line"]) for f in findings(top)} == expected
    assert top.returncode == 1

    deep = run_kernelint("check", "--format", "json", "--diff", "main", ".", cwd=repo / "kernels/more")
    assert {(f["path"], f["line"]) for f in findings(deep)} == {("act.py", erf_lines[1] + 1), ("act.py", len(lines) + 8)}

    git(repo, "add", ".")
    git(repo, "commit", "-qm", "more")
    assert run_kernelint("check", "--diff", "HEAD", ".", cwd=repo).returncode == 0
    assert run_kernelint("check", "--format", "json", "--diff", "HEAD~1", ".", cwd=repo).stdout == top.stdout


def test_diff_outside_a_repository_or_with_a_bad_ref_is_a_usage_error(repo, tmp_path_factory):
    bad = run_kernelint("check", "--diff", "no-such-ref", ".", cwd=repo)
    assert bad.returncode == 2 and "--diff no-such-ref" in bad.stderr
    elsewhere = write(tmp_path_factory.mktemp("nogit"), {"a.py": "x = 1\n"})
    outside = run_kernelint("check", "--diff", "HEAD", ".", cwd=elsewhere)
    assert outside.returncode == 2 and "needs a git repository" in outside.stderr


@pytest.mark.parametrize("level, status", [("info", 1), ("warning", 1), ("error", 0)])
def test_fail_on(tmp_path, level, status):
    write(tmp_path, {"mod.py": "import triton\n" + stale(1)})  # one warning only
    result = run_kernelint("check", "--fail-on", level, "mod.py", cwd=tmp_path)
    assert result.returncode == status and "KL003" in result.stdout


def test_statistics(repo):
    result = run_kernelint("check", "--statistics", ".", cwd=repo)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "10  KL003  unused-suppression  [warning]",
        "10  KL104  erf-needs-fp32  [error]",
        "Found 20 problems.",
    ]


def test_show_source_puts_a_caret_under_the_range(tmp_path):
    write(tmp_path, {"mod.py": "import triton\n\nvalue = 1  # noqa: KL002\n"})
    result = run_kernelint("check", "--show-source", "mod.py", cwd=tmp_path)
    out = result.stdout.splitlines()
    assert out[1] == "  value = 1  # noqa: KL002"
    assert out[2] == "  " + " " * len("value = 1  ") + "^"


def _colour(tmp_path, **env) -> str:
    write(tmp_path, {"mod.py": "import triton\n" + stale(1)})
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(env)
    result = subprocess.run([sys.executable, "-m", "kernelint", "check", "mod.py"], cwd=tmp_path,
                            capture_output=True, text=True, env=environment)
    return result.stdout


def test_colour_follows_force_color_and_no_color(tmp_path):
    assert "\033[" not in _colour(tmp_path)  # a pipe is not a terminal
    assert "\033[" in _colour(tmp_path, FORCE_COLOR="1")
    assert "\033[" not in _colour(tmp_path, FORCE_COLOR="1", NO_COLOR="1")


def test_colour_on_a_terminal(tmp_path):
    pty = pytest.importorskip("pty")
    write(tmp_path, {"mod.py": "import triton\n" + stale(1)})
    code = ("import os, sys; os.chdir(sys.argv[1]); from kernelint.cli import main; "
            "sys.exit(main(['check', 'mod.py']))")
    for env, coloured in (({}, True), ({"NO_COLOR": "1"}, False)):
        try:
            pid, fd = pty.fork()
        except OSError as error:  # no pseudo-terminals in this container
            pytest.skip(f"cannot open a pseudo-terminal: {error}")
        if pid == 0:  # pragma: no cover - the child
            os.environ.pop("NO_COLOR", None)
            os.environ.pop("FORCE_COLOR", None)
            os.environ.update(env)
            os.execv(sys.executable, [sys.executable, "-c", code, str(tmp_path)])
        output = b""
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        os.waitpid(pid, 0)
        assert (b"\033[" in output) is coloured, output


def test_diff_follows_file_names_git_quotes(repo):
    name = 'kernels/odd "name"\tü.py'
    write(repo, {name: HEADER})
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "odd name")
    (repo / name).write_text(HEADER + kernel("odd"))
    result = run_kernelint("check", "--format", "json", "--diff", "HEAD", ".", cwd=repo)
    assert [(f["path"], f["code"]) for f in findings(result)] == [(name, "KL104")]


def test_caret_and_annotation_columns_count_characters(tmp_path):
    write(tmp_path, {"mod.py": 'import triton\n\nname = "ünï"  # noqa: KL002\n'})
    shown = run_kernelint("check", "--show-source", "mod.py", cwd=tmp_path).stdout.splitlines()
    assert shown[2] == "  " + " " * len('name = "ünï"  ') + "^"
    annotation = run_kernelint("check", "--format", "github", "mod.py", cwd=tmp_path).stdout
    prefix = 'name = "ünï"  '
    assert f",col={len(prefix) + 1}," in annotation
