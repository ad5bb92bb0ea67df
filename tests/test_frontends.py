"""The CLI, the flake8 plugin and the pylint plugin agree on a project with excludes and
per-file ignores; pylint loads kernelint beside other plugins; flake8 owns ``# noqa``."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.full  # the real flake8 and pylint: the full tier

from kernelint.rules import all_rules, configured_severity_messages, pylint_messages
from test_cli import write

pytest.importorskip("flake8")
pytest.importorskip("pylint")

STALE = "import triton\n\nx = 1  # noqa: KL002\n"  # KL003 at 3
ERF = (
    "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
    "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
    "    tl.store(x_ptr + offs, tl.math.erf(x), mask=offs < n)  # noqa: KL104\n"
)
PROJECT = {
    "pyproject.toml": (
        "[project]\nname = 'demo'\n\n"
        "[tool.kernelint]\n"
        'exclude = ["generated/", "*_pb2.py", "./scratch.py"]\n'
        'per-file-ignores = { "tests/**" = ["KL003"], "legacy.py" = ["unused-suppression"] }\n'
    ),
    "kernels/stale.py": STALE,
    "kernels/sub/stale.py": STALE,
    "tests/test_stale.py": STALE,
    "generated/stale.py": STALE,
    "kernels/api_pb2.py": STALE,
    "scratch.py": STALE,
    "kernels/scratch.py": STALE,  # ./scratch.py is anchored: this one is checked
    "legacy.py": STALE,
    "kernels/legacy.py": STALE,  # legacy.py has no slash: matches at any depth
}
EXPECTED = {"kernels/stale.py", "kernels/sub/stale.py", "kernels/scratch.py"}


def _run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True,
                            input=stdin, timeout=600)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def cli_paths(root: Path, *args: str, stdin: str | None = None) -> set[tuple[str, int, str]]:
    result = _run("kernelint", "check", "--format", "json", "--no-cache", *args, cwd=root, stdin=stdin)
    assert result.returncode in (0, 1), result.stderr
    return {(f["path"], f["line"], f["code"]) for f in json.loads(result.stdout)}


def flake8_paths(root: Path, *args: str, stdin: str | None = None) -> set[tuple[str, int, str]]:
    result = _run("flake8", "--isolated", "--select", "KL", "--format", "%(path)s|%(row)d|%(code)s", *args,
                  cwd=root, stdin=stdin)
    assert result.returncode in (0, 1), result.stderr
    found = set()
    for line in result.stdout.splitlines():
        path, row, code = line.rsplit("|", 2)
        found.add((path.removeprefix("./"), int(row), code))
    return found


def pylint_paths(root: Path, *args: str, stdin: str | None = None) -> set[tuple[str, int, str]]:
    result = _run("pylint", "--load-plugins=kernelint.pylint_plugin", "--disable=all",
                  "--enable=kernelint-unused-suppression,erf-needs-fp32", "--output-format=json2",
                  "--persistent=n", *args, cwd=root, stdin=stdin)
    assert result.returncode & 1 == 0 and result.returncode & 32 == 0, result.stderr
    codes = {"kernelint-unused-suppression": "KL003", "erf-needs-fp32": "KL104"}
    return {(m["path"], m["line"], codes[m["symbol"]]) for m in json.loads(result.stdout)["messages"]}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("frontends"), PROJECT)


def test_directory_walk_agrees(project):
    expected = {(path, 3, "KL003") for path in EXPECTED}
    assert cli_paths(project, ".") == expected
    assert flake8_paths(project, ".") == expected
    assert pylint_paths(project, "--recursive=y", ".") == expected


def test_files_named_one_by_one_agree(project):
    """How pre-commit and editors call the tools: every file by name. flake8 and pylint apply
    `exclude` to such files, and so does the CLI with --force-exclude."""
    files = sorted(name for name in PROJECT if name.endswith(".py"))
    expected = {(path, 3, "KL003") for path in EXPECTED}
    assert cli_paths(project, "--force-exclude", *files) == expected
    assert flake8_paths(project, *files) == expected
    assert pylint_paths(project, *files) == expected
    # Without --force-exclude a file named on the command line is checked (as ruff does).
    assert ("generated/stale.py", 3, "KL003") in cli_paths(project, "generated/stale.py")


def test_every_front_end_runs_from_a_subdirectory(project):
    expected = {("stale.py", 3, "KL003"), ("sub/stale.py", 3, "KL003"), ("scratch.py", 3, "KL003")}
    root = project / "kernels"
    assert cli_paths(root, ".") == expected
    assert flake8_paths(root, ".") == expected


def test_pylint_loads_beside_other_plugins(tmp_path):
    for plugin in ("pylint_django", "pylint_pytest", "pylint_pydantic"):
        pytest.importorskip(plugin)
    write(tmp_path, {"mod.py": STALE})
    plugins = "pylint_django,pylint_pytest,pylint_pydantic,kernelint.pylint_plugin"
    result = _run("pylint", f"--load-plugins={plugins}", "--disable=all",
                  "--enable=kernelint-unused-suppression", "--persistent=n", "mod.py", cwd=tmp_path)
    assert result.returncode == 4, result.stdout + result.stderr  # a warning, no fatal or usage error
    assert "mod.py:3:7: W7103: unused suppression" in result.stdout

    listed = _run("pylint", f"--load-plugins={plugins},{_all_extensions()}", "--list-msgs-enabled",
                  "--persistent=n", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    ids = set(re.findall(r"\(([CRWEIF]\d{4})\)", listed.stdout))
    ours = {msgid for rule in all_rules() if rule.code != "KL001"
            for _, msgid, _ in pylint_messages(rule) + configured_severity_messages(rule)}
    assert ours <= ids
    assert not {i[1:3] for i in ids - ours} & {i[1:3] for i in ours}, "a checker id is shared"


def _all_extensions() -> str:
    import pkgutil

    import pylint.extensions

    return ",".join(f"pylint.extensions.{m.name}" for m in pkgutil.iter_modules(pylint.extensions.__path__)
                    if not m.name.startswith("_"))


def test_flake8_applies_noqa_itself(tmp_path):
    """`# noqa` is flake8's to apply: --disable-noqa shows what it hides; kernelint's own
    directive still applies."""
    directive = ERF.replace("# noqa: KL104", "# kernelint: disable=KL104")
    write(tmp_path, {"noqa.py": ERF, "directive.py": directive})
    assert flake8_paths(tmp_path, "noqa.py", "directive.py") == set()
    assert flake8_paths(tmp_path, "--disable-noqa", "noqa.py", "directive.py") == {("noqa.py", 9, "KL104")}
    assert cli_paths(tmp_path, "noqa.py", "directive.py") == set()
    assert pylint_paths(tmp_path, "noqa.py", "directive.py") == set()


def test_python_lsp_server_reports_kernelint_findings_for_the_buffer(tmp_path):
    """python-lsp-server configured as docs/editors.md says: its flake8 plugin on the unsaved
    buffer (the file on disk is clean) reports kernelint's finding under the file's config."""
    pytest.importorskip("pylsp")
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("editor_latency", ROOT / "benchmarks" / "editor_latency.py")
    editor_latency = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(editor_latency)
    write(tmp_path, {"pyproject.toml": '[tool.kernelint]\nper-file-ignores = { "ignored/" = ["KL003"] }\n',
                     "pkg/mod.py": "x = 1\n", "ignored/mod.py": "x = 1\n"})
    server = editor_latency.LanguageServer(tmp_path)
    try:
        server.start()
        found = {}
        for name in ("pkg/mod.py", "ignored/mod.py"):
            server.arrived.clear()
            uri = (tmp_path / name).as_uri()
            server.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "python", "version": 1, "text": STALE}})
            assert server.arrived.wait(60), "no diagnostics"
            found[name] = [(d["range"]["start"]["line"] + 1, d["code"]) for d in server.diagnostics]
    finally:
        server.stop()
    assert found == {"pkg/mod.py": [(3, "KL003")], "ignored/mod.py": []}


def test_engine_does_not_import_the_configuration():
    """Configuration belongs to the front ends (kernelint.frontend); the engine takes Options."""
    code = "import sys, kernelint.engine; print('kernelint.config' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("docs_url", [None, "https://docs.example.com/kernelint/{code}.html"])
def test_every_output_links_the_rule_doc_only_where_docs_url_says(tmp_path, docs_url):
    from test_cli import run_kernelint

    url = docs_url.replace("{code}", "KL003") if docs_url else None
    config = f'docs-url = "{docs_url}"\n' if docs_url else ""
    write(tmp_path, {"mod.py": STALE, "pyproject.toml": "[tool.kernelint]\n" + config})
    assert json.loads(run_kernelint("check", "--format", "json", "mod.py", cwd=tmp_path).stdout)[0]["url"] == url
    sarif = json.loads(run_kernelint("check", "--format", "sarif", "mod.py", cwd=tmp_path).stdout)
    [kl003] = [r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "KL003"]
    assert kl003.get("helpUri") == url and "## What it does" in kl003["help"]["markdown"]
    explained = run_kernelint("explain", "KL003", cwd=tmp_path).stdout
    assert ("Online: " + url in explained) if url else ("Online" not in explained and "http" not in explained)
    rules = json.loads(run_kernelint("rules", "--format", "json", cwd=tmp_path).stdout)
    assert {row["code"]: row["url"] for row in rules}["KL003"] == url
    help_msg = _run("pylint", "--load-plugins=kernelint.pylint_plugin", "--help-msg=W7103", cwd=tmp_path).stdout
    assert (url in help_msg) if url else "http" not in help_msg


def test_a_docs_url_without_its_code_placeholder_is_a_config_error(tmp_path):
    from test_cli import run_kernelint

    write(tmp_path, {"mod.py": STALE, "pyproject.toml": '[tool.kernelint]\ndocs-url = "https://docs.example.com/"\n'})
    result = run_kernelint("check", "mod.py", cwd=tmp_path)
    assert result.returncode == 2 and "docs-url must be an http(s) address with {code}" in result.stderr


def test_front_ends_agree_on_a_fact_from_another_module(tmp_path):
    """A finding decided by another module (the bf16 tensor a layer module passes) is the same
    in the CLI, flake8 and pylint: each front end gives the engine the file's path, and the
    program model reads the rest of the project from there."""
    root = tmp_path / "project"
    shutil.copytree(Path(__file__).parent / "projects" / "KL114_bf16_from_a_layer_module", root)
    (root / "pyproject.toml").write_text('[tool.kernelint]\nselect = ["KL114"]\n')
    expected = {("pkg/ops/norm.py", 13, "KL114")}
    assert cli_paths(root, "pkg/ops/norm.py") == expected
    assert flake8_paths(root, "pkg/ops/norm.py") == expected
    result = _run("pylint", "--load-plugins=kernelint.pylint_plugin", "--disable=all",
                  "--enable=low-precision-transcendental", "--output-format=json2", "--persistent=n",
                  "pkg/ops/norm.py", cwd=root)
    assert {(m["path"], m["line"]) for m in json.loads(result.stdout)["messages"]} == {("pkg/ops/norm.py", 13)}
