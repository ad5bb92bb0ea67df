"""The real flake8 and pylint executables with kernelint's plugins report what the CLI reports."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.full  # the real flake8 and pylint: the full tier

from conftest import pair_dirs
from kernelint.engine import SYNTAX_ERROR
from kernelint.rules import all_rules, pylint_messages
from test_cli import run_kernelint, write

pytest.importorskip("flake8")
pytest.importorskip("pylint")

#: Always present, so the comparison never runs on nothing: KL003 findings, a noqa'd line, and a
#: file that cannot hold kernels.
SAMPLE = {
    "sample/stale.py": "import triton\n\nx = 1  # noqa: KL002\ny = 2  # noqa: KL002, E501\nz = 3  # noqa\n",
    "sample/directive.py": "import triton\n# kernelint: disable=no-such-rule\nx = 1\n",
    "sample/plain.py": "x = 1  # noqa: KL002\n",
}
SYMBOLS = {symbol: rule.code for rule in all_rules() if rule.code != SYNTAX_ERROR
           for _, _, symbol in pylint_messages(rule)}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True,
                            timeout=600)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def cli(root: Path) -> set[tuple[str, int, str]]:
    result = run_kernelint("check", "--format", "json", ".", cwd=root)
    assert result.returncode in (0, 1), result.stderr
    return {(str((root / f["path"]).resolve()), f["line"], f["code"]) for f in json.loads(result.stdout)}


def flake8(root: Path) -> set[tuple[str, int, str]]:
    result = _run("flake8", "--isolated", "--select", "KL", "--format", "%(path)s|%(row)d|%(code)s", ".",
                  cwd=root)
    assert result.returncode in (0, 1), result.stderr
    found = set()
    for line in result.stdout.splitlines():
        path, row, code = line.rsplit("|", 2)
        found.add((str((root / path).resolve()), int(row), code))
    return found


def pylint(root: Path, *paths: str) -> list[dict]:
    result = _run("pylint", "--load-plugins=kernelint.pylint_plugin", "--disable=all",
                  f"--enable={','.join(SYMBOLS)}", "--output-format=json2", "--persistent=n",
                  "--recursive=y", *(paths or ["."]), cwd=root)
    assert result.returncode & 1 == 0 and result.returncode & 32 == 0, result.stderr  # no fatal, no usage error
    return json.loads(result.stdout)["messages"]


def pylint_found(root: Path) -> set[tuple[str, int, str]]:
    return {(str((root / m["path"]).resolve()), m["line"], SYMBOLS[m["symbol"]]) for m in pylint(root)}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """Every reference pair's kernels (whatever pairs exist) plus the sample files, checked with
    every rule on so that off-by-default rules are compared too."""
    root = tmp_path_factory.mktemp("plugins")
    config = '[tool.kernelint]\nselect = ["ALL"]\nexclude = ["sample/excluded"]\n'
    write(root, {"pyproject.toml": config, **SAMPLE, "sample/excluded/stale.py": SAMPLE["sample/stale.py"]})
    for pair in pair_dirs():
        target = root / pair.parent.name / pair.name
        target.mkdir(parents=True)
        for name in ("bad.py", "good.py"):
            shutil.copyfile(pair / name, target / name)
    return root


@pytest.fixture(scope="module")
def from_cli(corpus) -> set[tuple[str, int, str]]:
    found = cli(corpus)
    assert {(Path(p).name, code) for p, _, code in found} >= {("stale.py", "KL003"), ("directive.py", "KL003")}
    for pair in pair_dirs():  # the comparison must see every pair's findings
        assert any(p == str(corpus / pair.parent.name / pair.name / "bad.py") for p, _, _ in found), pair.name
    return found


def _diff(expected: set, actual: set) -> str:
    return f"only in CLI: {sorted(expected - actual)}\nonly in plugin: {sorted(actual - expected)}"


def test_flake8_reports_what_the_cli_reports(corpus, from_cli):
    found = flake8(corpus)
    assert found == from_cli, _diff(from_cli, found)


def test_pylint_reports_what_the_cli_reports(corpus, from_cli):
    found = pylint_found(corpus)
    assert found == from_cli, _diff(from_cli, found)


def test_flake8_message_format(corpus):
    result = _run("flake8", "--isolated", "--select", "KL", "sample/stale.py", cwd=corpus)
    assert re.fullmatch(r"sample/stale\.py:3:8: KL003 unused suppression: KL002 \(internal-error\) .*",
                        result.stdout.splitlines()[0])


def test_pylint_disable_pragma(tmp_path):
    line = "x = 1  # noqa: KL002"
    write(tmp_path, {
        "plain.py": f"import triton\n{line}\n",
        "disabled.py": f"import triton\n{line}  # pylint: disable=kernelint-unused-suppression\n",
        "other_disabled.py": f"import triton\n{line}  # pylint: disable=kernelint-internal-error\n",
    })
    messages = pylint(tmp_path, "plain.py", "disabled.py", "other_disabled.py")
    assert sorted((m["path"], m["line"], m["column"], m["messageId"], m["symbol"]) for m in messages) == [
        ("other_disabled.py", 2, 7, "W7103", "kernelint-unused-suppression"),
        ("plain.py", 2, 7, "W7103", "kernelint-unused-suppression"),
    ]


def test_pylint_message_help_is_short_and_names_the_explain_command(tmp_path):
    result = _run("pylint", "--load-plugins=kernelint.pylint_plugin", "--help-msg=W7103", cwd=tmp_path)
    assert ":kernelint-unused-suppression (W7103)" in result.stdout
    assert "`kernelint explain KL003` prints the full documentation and evidence" in result.stdout
    assert "http" not in result.stdout  # no docs-url configured, no address
    assert "What it does" not in result.stdout


def test_plugins_are_cheap_to_import():
    code = "import sys, kernelint.flake8_plugin; print(sorted(m for m in sys.modules if m.startswith('kernelint')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "['kernelint', 'kernelint.flake8_plugin']"


def test_config_error_is_a_finding_not_a_crash(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.kernelint]\nselect = ["KL9"]\n', "mod.py": "import triton\n"})
    result = _run("flake8", "--isolated", "--select", "KL", "mod.py", cwd=tmp_path)
    assert "mod.py:1:1: KL002 kernelint configuration error:" in result.stdout
    assert "pyproject.toml: unknown rule selector 'KL9'" in result.stdout
    [message] = pylint(tmp_path, "mod.py")
    assert message["symbol"] == "kernelint-internal-error" and "'KL9'" in message["message"]
