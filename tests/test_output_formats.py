"""The formats people read (issue 25 item 4): the full text format, --output-format, --color,
--statistics in every --format, typo suggestions, pylint ids in `kernelint rules`, --add-noqa,
an unknown --diff revision, `prove --report` without matplotlib."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_baseline import HEADER, git, kernel, stale
from test_cli import run_kernelint, write

KERNEL = HEADER + kernel("gelu")  # KL104 (error, safe fix) on the erf line
ERF_LINE = 1 + KERNEL.splitlines().index(next(l for l in KERNEL.splitlines() if "erf" in l))


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(extra)
    return env


def _check(cwd: Path, *args: str, **env) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "kernelint", "check", "--no-cache", *args], cwd=cwd,
                            capture_output=True, text=True, timeout=120, env=_env(**env))
    assert "Traceback" not in result.stderr, result.stderr
    return result


# --- full and concise ------------------------------------------------------------------------

def test_full_format_has_headline_frame_help_and_evidence(tmp_path):
    write(tmp_path, {"k.py": KERNEL})
    out = _check(tmp_path, "--output-format", "full", "k.py").stdout.splitlines()
    erf = KERNEL.splitlines()[ERF_LINE - 1]
    column = erf.index("tl.math.erf") + 1
    assert out[0].startswith(f"k.py:{ERF_LINE}:{column}: KL104 [error] erf of a value loaded")
    width = len(str(ERF_LINE + 1))
    assert f"{ERF_LINE:>{width}} | {erf}" in out
    caret_line = out[out.index(f"{ERF_LINE:>{width}} | {erf}") + 1]
    assert caret_line.startswith(" " * width + " | " + " " * (column - 1) + "^")
    assert caret_line.endswith("^ erf-needs-fp32")
    span = caret_line.count("^")
    assert span == len("tl.math.erf(x * 0.7071067811865476)")
    assert any(line.strip().startswith("= help: Upcast the erf argument to fp32") for line in out)
    [evidence] = [line for line in out if line.strip().startswith("= evidence:")]
    assert "reproduced on NVIDIA H200" in evidence and "CompilationError" in evidence
    assert out[-2:] == ["Found 1 problem.", "(1 fixable with --fix; --show-fixes shows the changes)"]


def test_concise_is_todays_line_and_the_default_in_a_pipe(tmp_path):
    write(tmp_path, {"k.py": KERNEL})
    piped = _check(tmp_path, "k.py").stdout
    assert piped == _check(tmp_path, "--output-format", "concise", "k.py").stdout
    first = piped.splitlines()[0]
    assert first.startswith(f"k.py:{ERF_LINE}:") and " KL104 erf of a value" in first
    assert first.endswith("[erf-needs-fp32]")


def test_full_is_the_default_on_a_terminal(tmp_path):
    pty = pytest.importorskip("pty")
    write(tmp_path, {"k.py": KERNEL})
    code = ("import os, sys; os.chdir(sys.argv[1]); from kernelint.cli import main; "
            "sys.exit(main(['check', '--no-cache', '--color', 'never', 'k.py']))")
    try:
        pid, fd = pty.fork()
    except OSError as error:
        pytest.skip(f"cannot open a pseudo-terminal: {error}")
    if pid == 0:  # pragma: no cover - the child
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
    text = output.decode().replace("\r\n", "\n")
    assert "KL104 [error]" in text and "= evidence:" in text and "\033[" not in text


def test_a_control_character_in_the_source_is_not_sent_to_the_terminal(tmp_path):
    lines = KERNEL.splitlines(keepends=True)
    lines[ERF_LINE - 1] = lines[ERF_LINE - 1].rstrip("\n") + "  # \x1b[2J\n"
    write(tmp_path, {"k.py": "".join(lines)})
    out = _check(tmp_path, "--output-format", "full", "k.py").stdout
    assert "\x1b" not in out and "\ufffd[2J" in out


@pytest.mark.parametrize("args, env, coloured", [
    (["--color", "always"], {}, True),
    (["--color", "always"], {"NO_COLOR": "1"}, True),   # the flag is the user's explicit word
    (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    ([], {"FORCE_COLOR": "1"}, True),
    ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ([], {}, False),  # a pipe
])
def test_color_flag_and_environment(tmp_path, args, env, coloured):
    write(tmp_path, {"k.py": KERNEL})
    for style in ("full", "concise"):
        out = _check(tmp_path, "--output-format", style, *args, "k.py", **env).stdout
        assert ("\033[" in out) is coloured, (style, out)


def test_color_never_touches_machine_formats(tmp_path):
    write(tmp_path, {"k.py": KERNEL})
    out = _check(tmp_path, "--format", "json", "--color", "always", "k.py").stdout
    assert "\033[" not in out and json.loads(out)[0]["code"] == "KL104"


def test_output_format_with_a_machine_format_is_refused(tmp_path):
    write(tmp_path, {"k.py": KERNEL})
    result = _check(tmp_path, "--format", "json", "--output-format", "full", "k.py")
    assert result.returncode == 2 and "shapes the text format, not json" in result.stderr


# --- statistics in every format --------------------------------------------------------------

def test_statistics_honours_the_format(tmp_path):
    write(tmp_path, {"k.py": KERNEL + stale(1) + stale(2)})
    rows = json.loads(_check(tmp_path, "--statistics", "--format", "json", "k.py").stdout)
    assert rows == [
        {"code": "KL003", "name": "unused-suppression", "severity": "warning", "count": 2, "fixable": 2},
        {"code": "KL104", "name": "erf-needs-fp32", "severity": "error", "count": 1, "fixable": 1},
    ]
    github = _check(tmp_path, "--statistics", "--format", "github", "k.py").stdout.splitlines()
    assert github == ["::notice title=kernelint statistics::2 KL003 unused-suppression [warning]",
                      "::notice title=kernelint statistics::1 KL104 erf-needs-fp32 [error]"]
    sarif = _check(tmp_path, "--statistics", "--format", "sarif", "k.py")
    assert sarif.returncode == 2 and "--statistics writes text, json or github" in sarif.stderr
    assert sarif.stdout == ""


# --- typo suggestions ------------------------------------------------------------------------

@pytest.mark.parametrize("args, hint", [
    (["check", "k.py", "--select", "KL1O1"], "(did you mean 'KL101'?)"),
    (["check", "k.py", "--ignore", "erf-need-fp32"], "(did you mean 'erf-needs-fp32'?)"),
    (["explain", "KL1O4"], "(did you mean KL104, erf-needs-fp32?)"),
    (["explain", "hardcoded_pointer_typ"], "(did you mean KL101, hardcoded-pointer-type?)"),
    (["prove", "KL1O4"], "(did you mean 'KL104'?)"),
])
def test_typos_get_the_nearest_code_or_name(tmp_path, args, hint):
    write(tmp_path, {"k.py": KERNEL})
    result = run_kernelint(*args, cwd=tmp_path)
    assert result.returncode == 2 and hint in result.stderr, result.stderr


def test_a_far_miss_gets_no_suggestion(tmp_path):
    result = run_kernelint("explain", "completely-different", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean" not in result.stderr


def test_config_key_typo_is_suggested(tmp_path):
    write(tmp_path, {"k.py": KERNEL, "pyproject.toml": '[tool.kernelint]\nextend_select = ["KL205"]\n'})
    result = run_kernelint("check", "k.py", cwd=tmp_path)
    assert result.returncode == 2 and "(did you mean 'extend-select'?)" in result.stderr


def test_look_alike_characters_weigh_less():
    from kernelint.suggest import closest, distance

    assert distance("KL1O1", "KL101") < distance("KL1O1", "KL111")
    assert closest("KL1O1", ["KL311", "KL111", "KL101"]) == "KL101"
    assert closest("KL1O1", ["KL311"]) is None


# --- rules, --diff, prove --report ------------------------------------------------------------

def test_rules_lists_pylint_ids(tmp_path):
    from kernelint.rules import all_rules, pylint_messages

    out = run_kernelint("rules", cwd=tmp_path).stdout.splitlines()
    assert out[0].split()[-1] == "pylint"
    rows = {line.split()[0]: line.split()[-1] for line in out[1:]}
    for rule in all_rules():
        assert rows[rule.code] == "/".join(msgid for _, msgid, _ in pylint_messages(rule))
    assert rows["KL104"] == "E7204"


def test_an_unknown_diff_revision_is_explained(tmp_path):
    write(tmp_path, {"k.py": KERNEL})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "start")
    result = run_kernelint("check", "--diff", "origin/nope", "k.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "--diff origin/nope: no commit named 'origin/nope'" in result.stderr
    assert "git fetch" in result.stderr and "fatal:" not in result.stderr


def test_report_without_matplotlib_names_the_extra_and_writes_nothing(tmp_path, monkeypatch, capsys):
    from kernelint.cli import main

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    out = tmp_path / "report"
    assert main(["prove", "--report", str(out)]) == 2
    assert "pip install 'kernelint[report]'" in capsys.readouterr().err
    assert not out.exists()


def test_report_extra_is_matplotlib_only():
    import tomllib

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["report"] == ["matplotlib"]


# --- --add-noqa ------------------------------------------------------------------------------

def test_add_noqa_silences_every_finding_and_is_idempotent(tmp_path):
    other = KERNEL.replace("def gelu(", "def gelu_other(")
    text = KERNEL.replace("tl.math.erf(x * 0.7071067811865476)), mask=mask)",
                          "tl.math.erf(x * 0.7071067811865476)), mask=mask)  # noqa: E501")
    write(tmp_path, {"a.py": text, "b.py": other.replace("\n", "\r\n")})
    before = _check(tmp_path, "--format", "json", ".")
    assert {(f["path"], f["code"]) for f in json.loads(before.stdout)} == {("a.py", "KL104"), ("b.py", "KL104")}

    added = _check(tmp_path, "--add-noqa", ".")
    assert added.returncode == 0 and "added 2 noqa directives to 2 files" in added.stderr
    a = (tmp_path / "a.py").read_text().splitlines()
    assert a[ERF_LINE - 1].endswith("mask=mask)  # noqa: E501, KL104")  # the other tool's code kept
    b = (tmp_path / "b.py").read_bytes()
    assert b.count(b"\r\n") == other.count("\n") and b"\n" not in b.replace(b"\r\n", b"")  # endings kept
    assert b.decode().splitlines()[ERF_LINE - 1].endswith("mask=mask)  # noqa: KL104")

    assert _check(tmp_path, ".").returncode == 0  # nothing left, and no KL003 for the new noqa
    snapshot = {p.name: p.read_bytes() for p in tmp_path.glob("*.py")}
    again = _check(tmp_path, "--add-noqa", ".")
    assert again.returncode == 0 and "added 0 noqa directives" in again.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.py")} == snapshot


def test_add_noqa_skips_a_line_that_cannot_take_a_comment():
    from kernelint.noqa import CannotAnnotate, noqa_edit

    source = 'x = f("""a\nb""")\ny = 1 + \\\n    2\nz = 3  # keep this\nw = 4  # noqa\n'
    with pytest.raises(CannotAnnotate, match="inside a string"):
        noqa_edit(source, 1, ["KL101"])
    with pytest.raises(CannotAnnotate, match="backslash"):
        noqa_edit(source, 3, ["KL101"])
    edit = noqa_edit(source, 5, ["KL101"])
    assert (edit.col, edit.replacement) == (len("z = 3  # keep this"), "  # noqa: KL101")
    assert noqa_edit(source, 6, ["KL101"]) is None  # a bare noqa silences the line already


def test_add_noqa_refuses_what_it_cannot_do(tmp_path):
    write(tmp_path, {"k.py": KERNEL})
    for extra in (["--fix"], ["--statistics"]):
        result = _check(tmp_path, "--add-noqa", *extra, "k.py")
        assert result.returncode == 2 and "--add-noqa edits the checked files" in result.stderr
    assert (tmp_path / "k.py").read_text() == KERNEL


# --- listings follow --format ---------------------------------------------------------------

def test_show_files_and_show_settings_write_json(tmp_path):
    write(tmp_path, {"k.py": KERNEL, "pyproject.toml": '[tool.kernelint.severity]\nKL104 = "info"\n'})
    assert json.loads(_check(tmp_path, "--show-files", "--format", "json").stdout) == ["k.py"]
    settings = json.loads(_check(tmp_path, "--show-settings", "k.py", "--format", "json").stdout)
    assert settings["severity"] == {"KL104": "info"} and "KL104" in settings["rules-run"]
    assert settings["configuration"] == str((tmp_path / "pyproject.toml").resolve())


@pytest.mark.parametrize("args, message", [
    (["--show-files", "--format", "sarif"], "--show-files writes text or json, not sarif"),
    (["--show-settings", "k.py", "--format", "github"], "--show-settings writes text or json, not github"),
    (["--show-fixes", "k.py", "--format", "json"], "--show-fixes writes text (a diff), not json"),
])
def test_a_listing_in_a_format_it_cannot_write_is_refused(tmp_path, args, message):
    write(tmp_path, {"k.py": KERNEL})
    result = _check(tmp_path, *args)
    assert result.returncode == 2 and message in result.stderr and result.stdout == ""


def test_the_readme_full_format_example_is_what_the_command_prints():
    root = Path(__file__).parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    target = "reference_kernels/triton/KL104_erf_needs_fp32/bad.py"
    start = readme.index(f"```\n{target}:") + 4
    example = readme[start:readme.index("```", start)]
    printed = _check(root, "--output-format", "full", "--color", "never", target).stdout
    assert printed.startswith(example), printed


def test_output_format_in_the_configuration(tmp_path):
    write(tmp_path, {"k.py": KERNEL, "pyproject.toml": '[tool.kernelint]\noutput-format = "full"\n'})
    assert "KL104 [error]" in _check(tmp_path, "k.py").stdout  # full, though piped
    assert _check(tmp_path, "--output-format", "concise", "k.py").stdout.splitlines()[0].endswith("[erf-needs-fp32]")
    assert json.loads(_check(tmp_path, "--format", "json", "k.py").stdout)[0]["code"] == "KL104"
    stdin = subprocess.run([sys.executable, "-m", "kernelint", "check", "-", "--stdin-filename", "k.py"],
                           input=KERNEL, cwd=tmp_path, capture_output=True, text=True, timeout=120, env=_env())
    assert "KL104 [error]" in stdin.stdout and "= help:" in stdin.stdout
    assert "output-format: full" in _check(tmp_path, "--show-settings", "k.py").stdout
    (tmp_path / "pyproject.toml").write_text('[tool.kernelint]\noutput-format = "fancy"\n')
    result = _check(tmp_path, "k.py")
    assert result.returncode == 2 and "output-format must be one of 'full', 'concise', not 'fancy'" in result.stderr
