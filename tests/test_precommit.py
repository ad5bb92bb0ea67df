"""kernelint's hooks under the real ``pre-commit try-repo``, in a temporary git repository.

pre-commit installs this checkout (or $KERNELINT_HOOK_REPO; try-repo clones it) into a fresh
virtualenv with pip, so the test needs the package index, not GitHub.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.full  # the real pre-commit: the full tier

from conftest import ROOT
from test_cli import write

pytest.importorskip("pre_commit")
if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)
if subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT, capture_output=True).returncode != 0:
    pytest.skip("the kernelint checkout is not a git work tree", allow_module_level=True)

BAD = (
    "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
    "def gelu(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
    "    tl.store(x_ptr + offs, tl.math.erf(x), mask=offs < n)  # a comment that stays\n"
)
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """One pre-commit cache for the module, so the hook environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def repo(tmp_path) -> Path:
    write(tmp_path, {
        "pyproject.toml": '[tool.kernelint]\nselect = ["KL104"]\nexclude = ["generated/"]\n',
        "README.md": "a project\n",
        "kernels/gelu.py": BAD,
        "generated/gelu.py": BAD,
    })
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "pyproject.toml")
    git(tmp_path, "commit", "-q", "-m", "start")
    return tmp_path


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env={**os.environ, **ENV})


def try_repo(repo: Path, home: Path, hook: str, *files: str) -> subprocess.CompletedProcess:
    checkout = os.environ.get("KERNELINT_HOOK_REPO", str(ROOT))
    args = [sys.executable, "-m", "pre_commit", "try-repo", checkout, hook, "--color", "never"]
    args += ["--files", *files] if files else []
    env = {**os.environ, **ENV, "PRE_COMMIT_HOME": str(home)}
    env.pop("PRE_COMMIT", None)
    result = subprocess.run(args, cwd=repo, capture_output=True, text=True, env=env, timeout=900)
    assert "An error has occurred" not in result.stdout + result.stderr, result.stdout + result.stderr
    return result


def test_passes_when_no_python_file_is_staged(repo, home):
    git(repo, "add", "README.md")
    result = try_repo(repo, home, "kernelint")
    assert result.returncode == 0, result.stdout
    assert "(no files to check)Skipped" in result.stdout


def test_reports_staged_kernels_and_keeps_excluded_files_out(repo, home):
    git(repo, "add", "kernels/gelu.py", "generated/gelu.py")
    result = try_repo(repo, home, "kernelint")
    assert result.returncode == 1, result.stdout
    assert "kernels/gelu.py:9:28: KL104" in result.stdout
    assert "generated/gelu.py" not in result.stdout


def test_fix_hook_rewrites_the_file_then_passes(repo, home):
    git(repo, "add", "kernels/gelu.py")
    first = try_repo(repo, home, "kernelint-fix", "kernels/gelu.py")
    assert first.returncode == 1 and "files were modified by this hook" in first.stdout, first.stdout
    fixed = (repo / "kernels/gelu.py").read_text()
    assert "tl.math.erf(x.to(tl.float32)), mask=offs < n)  # a comment that stays" in fixed
    second = try_repo(repo, home, "kernelint-fix", "kernels/gelu.py")
    assert second.returncode == 0, second.stdout


def test_manifest_is_valid():
    result = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest",
                             str(ROOT / ".pre-commit-hooks.yaml")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
