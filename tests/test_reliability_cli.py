"""Bad input everywhere, through the real ``kernelint`` command and the flake8 and pylint
plugins: one clear line, the documented exit code, every other file still checked, and never
a traceback or a hang."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli import run_kernelint, write

import kernelint.discovery as discovery
from kernelint.config import Settings

BROKEN = "import triton\n\n@triton.jit\ndef kernel(x:\n    pass\n"  # KL001 at line 4
TIMEOUT = 180


def check(root: Path, *args: str) -> subprocess.CompletedProcess:
    return run_kernelint("check", "--no-cache", "--format", "json", *args, cwd=root)


def found(result: subprocess.CompletedProcess) -> set[tuple[str, str]]:
    return {(Path(f["path"]).as_posix(), f["code"]) for f in json.loads(result.stdout)}


@pytest.fixture
def tree(tmp_path) -> Path:
    """A git work tree with one file that gives a finding, so a lost run shows."""
    (tmp_path / ".git").mkdir()
    return write(tmp_path, {"src/broken.py": BROKEN})


# --- the directory walk never gives up on the first bad entry ---------------------------------

@pytest.mark.parametrize("line", ["[z-a]", "trailing\\", "!", "[", "**/[]", "\\"])
def test_gitignore_lines_git_accepts_do_not_stop_the_run(tree, line):
    (tree / ".gitignore").write_text(f"{line}\nignored.py\n")
    write(tree, {"src/ignored.py": BROKEN})
    result = check(tree, ".")
    assert result.returncode == 1, result.stderr
    assert found(result) == {("src/broken.py", "KL001")}  # the valid line after it still applies


def test_a_one_megabyte_pattern_is_skipped_quickly(tree):
    (tree / ".gitignore").write_text("a" * 1_000_000 + "\n")
    write(tree, {f"src/f{i}.py": "x = 1\n" for i in range(3)})
    result = check(tree, ".")
    assert result.returncode == 1 and found(result) == {("src/broken.py", "KL001")}
    assert result.stderr.count("pattern skipped: too long") == 1


def test_a_backtracking_pattern_is_skipped(tree):
    (tree / ".gitignore").write_text("*a*a*a*a*a*ab\n")
    write(tree, {"src/" + "a" * 200 + "c.py": "x = 1\n"})
    result = check(tree, ".")
    assert found(result) == {("src/broken.py", "KL001")}
    assert "too many wildcards" in result.stderr


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlink_loop_named_like_a_python_file(tree):
    (tree / "src" / "loop.py").symlink_to("loop.py")
    result = check(tree, ".")
    assert result.returncode == 1
    assert found(result) == {("src/broken.py", "KL001")}
    assert result.stderr.count("loop.py: skipped") == 1
    named = check(tree, "src/loop.py", "src/broken.py")
    assert found(named) == {("src/broken.py", "KL001")} and "loop.py: skipped" in named.stderr


def test_unreadable_directory_is_skipped_with_one_warning(tmp_path, monkeypatch):
    """In-process, so that it also runs as root (who can read a mode-000 directory)."""
    write(tmp_path, {"ok/a.py": "x = 1\n", "locked/b.py": "x = 1\n"})
    real = os.scandir

    def scandir(path):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    warnings: list[str] = []
    files, missing = discovery.discover([str(tmp_path)], Settings(root=tmp_path), warn=warnings.append)
    assert [Path(f).name for f in files] == ["a.py"] and missing == []
    assert len(warnings) == 1 and "locked: skipped: Permission denied" in warnings[0]


def held_to_mode_bits() -> list[str]:
    """A command prefix under which this user cannot read a mode-000 folder. Root can, through
    CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH; without those two (setpriv drops them from the
    bounding set, so the kernelint it starts never has them) root is held to the mode bits."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root reads mode-000 folders, and setpriv (util-linux) is not installed to stop it")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]


@pytest.mark.skipif(not hasattr(os, "chmod") or sys.platform == "win32", reason="needs POSIX modes")
def test_unreadable_directory_for_real(tree):
    prefix = held_to_mode_bits()
    locked = tree / "src" / "locked"
    locked.mkdir()
    (locked / "x.py").write_text(BROKEN)
    locked.chmod(0)
    try:
        result = subprocess.run([*prefix, sys.executable, "-m", "kernelint", "check", "--no-cache", "--format",
                                 "json", "."], cwd=tree, capture_output=True, text=True, timeout=TIMEOUT)
    finally:
        locked.chmod(0o755)
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    assert found(result) == {("src/broken.py", "KL001")} and "locked: skipped" in result.stderr, result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_special_files_named_like_python_files(tree):
    os.mkfifo(tree / "src" / "pipe.py")
    (tree / "src" / "zero.py").symlink_to("/dev/zero")
    (tree / "src" / "dangling.py").symlink_to("nowhere.py")
    (tree / "src" / "folder.py").mkdir()
    (tree / "src" / "folder.py" / "inner.py").write_text(BROKEN)
    result = check(tree, ".")  # walked: only regular files are picked up
    assert found(result) == {("src/broken.py", "KL001"), ("src/folder.py/inner.py", "KL001")}
    named = check(tree, "src/pipe.py", "src/zero.py", "src/broken.py")  # named: each says why
    assert found(named) == {("src/broken.py", "KL001"), ("src/pipe.py", "KL002"), ("src/zero.py", "KL002")}
    assert all("not a regular file" in f["message"] for f in json.loads(named.stdout) if f["code"] == "KL002")


def test_the_same_file_named_three_ways_is_reported_once(tree):
    result = run_kernelint("check", "--no-cache", "--format", "json", "broken.py", "./broken.py",
                           "../src/broken.py", cwd=tree / "src")
    assert [(f["path"], f["code"]) for f in json.loads(result.stdout)] == [("broken.py", "KL001")]


# --- odd files: every other file is still checked ------------------------------------------------

ODD_FILES: dict[str, bytes] = {
    "binary.py": bytes(range(256)) * 16,
    "latin1.py": b"import triton\nname = '\xe9t\xe9'\n",
    "bom.py": b"\xef\xbb\xbfimport triton\r\n\r\nx = 1\r\n",
    "crlf.py": b"import triton\r\n\r\n@triton.jit\r\ndef k(x):\r\n    pass\r\n",
    "nul.py": b"import triton\nx = 1\0\n",
    "empty.py": b"",
    "deep.py": b"import triton\nx = " + b"-" * 100_000 + b"1\n",
    "deep_parens.py": b"import triton\nx = " + b"(" * 100_000 + b")" * 100_000 + b"\n",
    "bad_coding.py": b"# -*- coding: no-such-codec -*-\nimport triton\n",
    "newer.py": b"import triton\n\ndef f[T](x: T) -> T:\n    return x\n",
}


def test_odd_files_never_stop_the_run(tree):
    write(tree, {f"odd/{name}": data for name, data in ODD_FILES.items()})
    with open(tree / "odd" / "huge.py", "wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    result = check(tree, ".")
    assert result.returncode == 1, result.stderr
    codes = found(result)
    assert ("src/broken.py", "KL001") in codes
    assert ("odd/huge.py", "KL002") in codes
    assert {code for _, code in codes} <= {"KL001", "KL002"}
    assert {path for path, code in codes if code == "KL002"} == {"odd/huge.py"}


# --- the command line itself ---------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--target-arch", "sm_" + "9" * 5000], "target-arch must look like"),
    (["-j", "0"], "--jobs must be at least 1"),
    (["-j", "-3"], "--jobs must be at least 1"),
    (["-j", "many"], "invalid int value"),  # argparse adds its usage lines
    (["--select", "KL999"], "KL999"),
    (["missing/nowhere.py"], "no such file or directory"),
])
def test_bad_arguments_give_one_clear_line_and_exit_2(tree, args, message):
    result = run_kernelint("check", "--no-cache", *args, cwd=tree)
    assert result.returncode == 2
    assert message in result.stderr
    assert message in result.stderr.splitlines()[-1] and len(result.stderr.splitlines()[-1]) < 200


def test_a_5000_digit_target_arch_in_the_config(tree):
    (tree / "pyproject.toml").write_text(f'[tool.kernelint]\ntarget-arch = "sm_{"9" * 5000}"\n')
    result = run_kernelint("check", "--no-cache", ".", cwd=tree)
    assert result.returncode == 2 and "target-arch" in result.stderr and len(result.stderr) < 600


def test_many_jobs_are_capped_and_give_the_same_answer(tree):
    write(tree, {f"many/f{i}.py": BROKEN for i in range(40)})
    one = check(tree, "-j", "1", ".")
    many = check(tree, "-j", "1000", ".")
    assert many.returncode == one.returncode == 1
    assert many.stdout == one.stdout


def test_closed_stdout_is_one_clear_line(tree):
    result = subprocess.run([sys.executable, "-m", "kernelint", "check", "--no-cache", "."], cwd=tree,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=TIMEOUT,
                            preexec_fn=lambda: os.close(1))
    assert result.returncode == 2
    assert "standard output is closed" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_stdout_is_one_clear_line(tree):
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "kernelint", "check", "--no-cache", "."], cwd=tree,
                                stdout=full, stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)
    assert result.returncode == 2
    assert "No space left on device" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("target", ["out", "missing-dir/out.json"])
def test_unwritable_output(tree, target):
    (tree / "out").mkdir()
    result = run_kernelint("check", "--no-cache", "-o", target, ".", cwd=tree)
    assert result.returncode == 2 and "cannot write" in result.stderr


# --- the same inputs through the flake8 and pylint plugins --------------------------------------

#: flake8 parses every file itself before any plugin runs, and its own ``ast.parse`` dies with
#: a MemoryError on 100,000 nested unary minus signs: that one is left out for the plugins.
PLUGIN_ODD_FILES = {name: data for name, data in ODD_FILES.items() if name != "deep.py"}


def _plugin_tree(tree: Path) -> Path:
    write(tree, {f"odd/{name}": data for name, data in PLUGIN_ODD_FILES.items()})
    (tree / "pyproject.toml").write_text(f'[tool.kernelint]\ntarget-arch = "sm_{"9" * 5000}"\n')
    return tree


@pytest.mark.full  # the real flake8/pylint: the full tier
def test_flake8_survives_odd_files_and_a_broken_config(tree):
    pytest.importorskip("flake8")
    root = _plugin_tree(tree)
    result = subprocess.run([sys.executable, "-m", "flake8", "--select", "KL", "src", "odd"], cwd=root,
                            capture_output=True, text=True, timeout=600)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 1
    assert "KL002 kernelint configuration error" in result.stdout


@pytest.mark.full  # the real flake8/pylint: the full tier
def test_pylint_survives_odd_files_and_a_broken_config(tree):
    pytest.importorskip("pylint")
    root = _plugin_tree(tree)
    result = subprocess.run([sys.executable, "-m", "pylint", "--load-plugins=kernelint.pylint_plugin",
                             "--disable=all", "--enable=kernelint-internal-error", "--persistent=n", "src", "odd"],
                            cwd=root, capture_output=True, text=True, timeout=600)
    assert "Traceback" not in result.stderr + result.stdout, (result.stderr + result.stdout)[-2000:]
    assert result.returncode & 32 == 0  # no usage error; crashes of the plugin show as fatal (1)
    assert "kernelint configuration error" in result.stdout


DESCRIPTOR_KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, M, N, BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    desc.store([0, 0], desc.load([0, 0]))


def run(x):
    kernel[(1,)](x, x.shape[0], x.shape[1], BLOCK=64)
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_elsewhere_in_the_project_does_not_hang_project_wide_rules(tree):
    """Rules that read the whole project (the allocator index of KL106) read it safely too."""
    write(tree, {"src/kernels.py": DESCRIPTOR_KERNEL})
    os.mkfifo(tree / "src" / "pipe.py")
    (tree / "src" / "loop.py").symlink_to("loop.py")
    result = check(tree, "--select", "ALL", "src/kernels.py")
    assert result.returncode == 1 and ("src/kernels.py", "KL106") in found(result), result.stderr


def test_a_file_deleted_during_the_run(tree, monkeypatch, capsys):
    """Found by the walk, gone when it is read: a KL002 for it, every other file still checked."""
    from kernelint import cli

    write(tree, {"src/gone.py": BROKEN})
    real = discovery.discover

    def discover_then_delete(*args, **kwargs):
        found_files = real(*args, **kwargs)
        (tree / "src" / "gone.py").unlink()
        return found_files

    monkeypatch.setattr(discovery, "discover", discover_then_delete)
    monkeypatch.chdir(tree)
    assert cli.main(["check", "--no-cache", "--format", "json", "."]) == 1
    reported = {(f["path"], f["code"], f["message"]) for f in json.loads(capsys.readouterr().out)}
    assert ("src/broken.py", "KL001") in {(path, code) for path, code, _ in reported}
    assert ("src/gone.py", "KL002", "cannot read file: No such file or directory") in reported
