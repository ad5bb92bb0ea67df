"""The faults fault injection found on main (issue 25), each through the real command: every
test here failed before its fix."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_cli import write

TIMEOUT = 180
KERNEL = "import triton\n\nx = 1  # noqa: KL001\n"  # one KL003 finding


def kernelint(root: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernelint", *args], cwd=root, capture_output=True, text=True,
                          timeout=TIMEOUT, **kwargs)


# --- configuration: patterns that backtrack, values nested too deeply ---------------------------

@pytest.mark.parametrize("key", ["exclude", "per-file-ignores"])
def test_a_backtracking_config_pattern_is_refused_not_matched_for_minutes(tmp_path, key):
    pattern = "*a*a*a*a*a*a*a*a*a*ab"
    value = f'["{pattern}"]' if key == "exclude" else f'{{ "{pattern}" = ["KL003"] }}'
    write(tmp_path, {"pyproject.toml": f"[tool.kernelint]\n{key} = {value}\n", "a" * 60 + ".py": KERNEL})
    started = time.monotonic()
    result = kernelint(tmp_path, "check", "--no-cache", ".")
    assert time.monotonic() - started < 60
    assert result.returncode == 2
    assert f"{key} pattern '{pattern}' refused: too many wildcards" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_config_value_nested_too_deeply_is_one_clear_line(tmp_path):
    write(tmp_path, {"pyproject.toml": "[tool.kernelint]\nselect = " + "[" * 5000 + "]" * 5000 + "\n",
                     "k.py": KERNEL})
    result = kernelint(tmp_path, "check", "--no-cache", "k.py")
    assert result.returncode == 2
    assert result.stderr.strip() == (f"kernelint: error: {tmp_path / 'pyproject.toml'}: cannot read: "
                                      "values nested too deeply for Python's TOML reader")


@pytest.mark.full  # the real flake8
def test_flake8_reports_a_config_nested_too_deeply_without_a_traceback(tmp_path):
    pytest.importorskip("flake8")
    write(tmp_path, {"pyproject.toml": "[tool.kernelint]\nselect = " + "[" * 5000 + "]" * 5000 + "\n",
                     "k.py": KERNEL})
    result = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "KL", "k.py"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert "Traceback" not in result.stderr
    assert "KL002 kernelint configuration error" in result.stdout and "nested too deeply" in result.stdout


# --- standard input ------------------------------------------------------------------------------

def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_standard_input_is_read_only_up_to_the_size_bound(tmp_path):
    with open("/dev/zero", "rb") as zero:
        result = kernelint(tmp_path, "check", "-", "--stdin-filename", "k.py", stdin=zero, preexec_fn=_limit_memory)
    assert result.returncode == 1, result.stderr
    assert "k.py:1:1: KL002 file not checked: larger than 10 MiB" in result.stdout
    with open("/dev/zero", "rb") as zero:
        fixing = kernelint(tmp_path, "check", "-", "--fix", stdin=zero, preexec_fn=_limit_memory)
    assert fixing.returncode == 2 and fixing.stdout == ""  # an editor keeps its buffer
    assert "larger than 10 MiB" in fixing.stderr and "nothing was fixed" in fixing.stderr
