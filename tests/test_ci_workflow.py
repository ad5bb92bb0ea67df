"""docs/examples/kernelint.yml, the GitHub workflow docs/ci.md gives: parsed, and its kernelint
commands run in order on a scripted pull request in a temporary git repository."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from test_baseline import HEADER, git, kernel, stale
from test_cli import run_kernelint, write

yaml = pytest.importorskip("yaml")
if shutil.which("git") is None or shutil.which("bash") is None:
    pytest.skip("git and bash are needed", allow_module_level=True)

WORKFLOW = ROOT / "docs" / "examples" / "kernelint.yml"
SCHEMA = ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def steps(workflow: dict) -> list[dict]:
    [job] = workflow["jobs"].values()
    return job["steps"]


def test_docs_show_the_workflow_file_verbatim():
    assert WORKFLOW.read_text(encoding="utf-8") in (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")


def test_workflow_shape(workflow):
    assert set(workflow[True] if True in workflow else workflow["on"]) == {"pull_request", "push"}
    assert workflow["permissions"]["security-events"] == "write"
    by_use = {step.get("uses", "").split("@")[0]: step for step in steps(workflow)}
    assert by_use["actions/checkout"]["with"]["fetch-depth"] == 0
    upload = by_use["github/codeql-action/upload-sarif"]
    assert upload["with"]["category"] == "kernelint"
    commands = [step["run"] for step in steps(workflow) if "kernelint check" in step.get("run", "")]
    assert upload["with"]["sarif_file"] in commands[0]
    assert any("--format github" in c for c in commands) and any("--baseline" in c for c in commands)


def _run_step(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """A step's shell command with ``kernelint`` meaning this checkout, in a pull_request event."""
    env = {**os.environ, "GITHUB_BASE_REF": "main", "GITHUB_EVENT_NAME": "pull_request",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    script = f'kernelint() {{ "{sys.executable}" -m kernelint "$@"; }}\nset -e\n{command}\n'
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_workflow_commands_on_a_pull_request(workflow, tmp_path):
    # main: a kernel backlog of 20 findings, recorded in a committed baseline.
    write(tmp_path, {
        "pyproject.toml": "[tool.kernelint]\n",
        "kernels/gelu.py": HEADER + "".join(kernel(f"gelu_{i}") for i in range(10)) + "".join(stale(i) for i in range(10)),
    })
    git(tmp_path, "init", "-q", "-b", "main")
    assert run_kernelint("check", "--write-baseline", "kernelint-baseline.json", ".", cwd=tmp_path).returncode == 0
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "main")
    git(tmp_path, "update-ref", "refs/remotes/origin/main", "HEAD")  # what checkout's fetch-depth 0 gives
    # The pull request: one new kernel with the bug.
    git(tmp_path, "checkout", "-q", "-b", "feature")
    (tmp_path / "kernels/gelu.py").write_text((tmp_path / "kernels/gelu.py").read_text() + kernel("gelu_new"))
    git(tmp_path, "commit", "-qam", "add gelu_new")

    commands = [step for step in steps(workflow) if "kernelint check" in step.get("run", "")]
    sarif, annotate, gate = (step["run"] for step in commands)

    result = _run_step(sarif, tmp_path)
    assert result.returncode == 0, result.stderr
    log = json.loads((tmp_path / "kernelint.sarif").read_text())
    assert len(log["runs"][0]["results"]) == 21
    if SCHEMA.is_file():
        jsonschema = pytest.importorskip("jsonschema")
        schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
        assert not list(jsonschema.validators.validator_for(schema)(schema).iter_errors(log))

    result = _run_step(annotate, tmp_path)
    assert result.returncode == 0, result.stderr
    [annotation] = result.stdout.splitlines()
    assert annotation.startswith("::error file=kernels/gelu.py,line=") and "KL104" in annotation

    result = _run_step(gate, tmp_path)
    assert result.returncode == 1 and result.stdout.count(": KL104 ") == 1, result.stdout
    assert "^" in result.stdout  # --show-source

    fixed = (tmp_path / "kernels/gelu.py").read_text().replace(kernel("gelu_new"), kernel("gelu_new", upcast=True))
    (tmp_path / "kernels/gelu.py").write_text(fixed)
    assert _run_step(gate, tmp_path).returncode == 0
    assert _run_step(annotate, tmp_path).stdout == ""
