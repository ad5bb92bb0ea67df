"""The faults fault injection found on main (issue 25), each through the real command: every
test here failed before its fix."""
from __future__ import annotations

import ast
import json
import os
import resource
import signal
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


# --- the report ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["."], ["k.py"], ["-", "--stdin-filename", "k.py"]])
def test_the_report_never_overwrites_a_checked_file(tmp_path, args):
    write(tmp_path, {"k.py": KERNEL})
    result = kernelint(tmp_path, "check", "--no-cache", *args, "-o", "./k.py", input=KERNEL)
    assert result.returncode == 2
    assert "-o ./k.py is a file being checked" in result.stderr
    assert (tmp_path / "k.py").read_text() == KERNEL


NAMES = {"new\nline.py": "new\\nline.py", "\x1b[2Jclear.py": "\\x1b[2Jclear.py", "tab\there.py": "tab\\there.py",
         "rtl\u202eyp.py": "rtl\\u202eyp.py"}


def test_control_characters_in_file_names_are_shown_escaped(tmp_path):
    write(tmp_path, {name: KERNEL for name in NAMES} | {"plain é.py": KERNEL})
    text = kernelint(tmp_path, "check", "--no-cache", ".")
    assert text.returncode == 1
    shown = [line.split(":", 1)[0] for line in text.stdout.splitlines() if ": KL003 " in line]
    assert sorted(shown) == sorted([*NAMES.values(), "plain é.py"])
    assert not any(ch in text.stdout for ch in "\x1b\t\u202e")
    listed = kernelint(tmp_path, "check", "--show-files").stdout.splitlines()
    assert sorted(listed) == sorted([*NAMES.values(), "plain é.py"])
    data = json.loads(kernelint(tmp_path, "check", "--no-cache", "--format", "json", ".").stdout)
    assert sorted(f["path"] for f in data) == sorted([*NAMES, "plain é.py"])  # JSON keeps the exact name


# --- the directory walk: entries that are no regular file -----------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifos_devices_and_dangling_links_named_py_are_skipped_with_a_warning(tmp_path):
    write(tmp_path, {"k.py": KERNEL})
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    (tmp_path / "gone.py").symlink_to("nowhere.py")
    result = kernelint(tmp_path, "check", "--no-cache", ".")
    assert result.returncode == 1 and "k.py:3:8: KL003" in result.stdout
    warnings = sorted(result.stderr.splitlines())
    assert warnings == [
        "kernelint: warning: gone.py: skipped: a symbolic link to nothing",
        "kernelint: warning: pipe.py: skipped: a FIFO, not a regular file",
        "kernelint: warning: zero.py: skipped: a device (through a symbolic link), not a regular file",
    ]


# --- the cache -----------------------------------------------------------------------------------

def test_an_unwritable_cache_is_one_warning(tmp_path):
    write(tmp_path, {"k.py": KERNEL, "not-a-folder": ""})
    env = {**os.environ, "KERNELINT_CACHE_DIR": str(tmp_path / "not-a-folder" / "cache")}
    result = kernelint(tmp_path, "check", "k.py", env=env)
    assert result.returncode == 1 and "KL003" in result.stdout
    assert result.stderr.startswith(f"kernelint: warning: cache not written to {tmp_path / 'not-a-folder' / 'cache'}: ")
    assert result.stderr.count("\n") == 1


def test_a_cache_that_came_with_the_repository_is_not_trusted(tmp_path):
    """A committed .kernelint_cache whose entry says the file has no finding (what a clone, a
    copy or an archive would bring) is not read: the file is checked."""
    write(tmp_path, {"pyproject.toml": "[tool.kernelint]\n", "k.py": KERNEL})
    assert "KL003" in kernelint(tmp_path, "check", "k.py").stdout
    index = tmp_path / ".kernelint_cache" / "index.json"
    data = json.loads(index.read_text())
    [entry] = data["entries"].values()
    entry[1] = []  # no finding
    forged = index.with_name("forged.json")
    forged.write_text(json.dumps(data))
    os.replace(forged, index)  # a new file, as a checkout writes it
    result = kernelint(tmp_path, "check", "k.py")
    assert result.returncode == 1 and "KL003" in result.stdout


# --- Ctrl-C --------------------------------------------------------------------------------------

@pytest.mark.skipif(os.uname().machine != "x86_64" or not Path("/proc/self/syscall").exists(),
                    reason="reads the blocked system call from /proc (x86_64 numbers)")
def test_ctrl_c_says_so(tmp_path):
    process = subprocess.Popen([sys.executable, "-m", "kernelint", "check", "-"], cwd=tmp_path, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as from a terminal
    try:
        deadline = time.monotonic() + TIMEOUT
        while not Path(f"/proc/{process.pid}/syscall").read_text().startswith("0 0x0 "):  # read(0, ...)
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        process.kill()
    assert process.returncode == 2 and out == ""
    assert err == "kernelint: interrupted; nothing was reported\n"


# --- syntax of a newer Python ---------------------------------------------------------------------

@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the running Python parses PEP 701 f-strings")
def test_a_valid_python_3_12_file_is_analysed_or_said_not_analysed_at_info_never_an_error(tmp_path):
    write(tmp_path, {
        # PEP 701 f-strings: read as plain strings of the same shape, the rest analysed
        "fstrings.py": 'import triton\n\nnames = ["a", "b"]\nmsg = f"{", ".join(names)}"\nx = 1  # noqa: KL001\n',
        # PEP 695 type parameters: not analysed, said at info with the version needed
        "generic.py": "import triton\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n",
        # broken in every Python: an error, at its own line, f-strings or not
        "broken.py": 'import triton\n\nmsg = f"{x"\n',
        "broken_elsewhere.py": 'import triton\n\nmsg = f"{", ".join(n)}"\ndef f(:\n    pass\n',
    })
    found = json.loads(kernelint(tmp_path, "check", "--no-cache", "--format", "json", ".").stdout)
    by_file = {name: [(f["line"], f["code"], f["severity"]) for f in found if f["path"] == name]
               for name in ("fstrings.py", "generic.py", "broken.py", "broken_elsewhere.py")}
    assert by_file == {"fstrings.py": [(5, "KL003", "warning")], "generic.py": [(3, "KL001", "info")],
                       "broken.py": [(3, "KL001", "error")], "broken_elsewhere.py": [(4, "KL001", "error")]}
    [generic] = [f["message"] for f in found if f["path"] == "generic.py"]
    assert generic.startswith("file not analysed: type parameters need Python 3.12 or newer (PEP 695)")
    assert f"kernelint runs on Python {sys.version_info[0]}.{sys.version_info[1]}" in generic
    assert kernelint(tmp_path, "check", "--no-cache", "--fail-on", "warning", "generic.py").returncode == 0


def test_blanked_f_strings_keep_every_other_token_in_place():
    from kernelint.fstrings import blanked

    source = 'x = f"{", ".join(n)}"  # f"{"\nr = r"\\"" + rf"{n!r}"\nt = """\nf"{x"\n"""\ne = f"é{n}"; y = 1\n'
    text = blanked(source)
    assert [len(line.encode()) for line in text.split("\n")] == [len(line.encode()) for line in source.split("\n")]
    lines = text.split("\n")
    assert lines[0] == 'x = u"' + " " * 14 + '"  # f"{"'  # a plain literal where the f-string was; comment kept
    assert lines[1] == 'r = r"\\"" + r"      "'
    assert 't = """\nf"{x"\n"""' in text  # a plain string is left as it is
    assert lines[5] == 'e = u"     "; y = 1'  # é is two bytes: y keeps its byte column, as ast counts
    assert ast.parse(text).body[-1].col_offset == len('e = f"é{n}"; '.encode())
    assert blanked('x = f"{a"\n') is None


@pytest.mark.parametrize("line, broken", [
    ('msg = f"{", ".join(names)}"', False), ('y = f"{row["name"]}"', False), ('y = f"{"\\n".join(z)}"', False),
    ('x = f"{a:{width}.{prec}f}"', False), ('x = f"{f"{a}"}"', False), ('x = f"{ {"a": 1}["a"] }"', False),
    ('msg = f"{x"', True), ('x = f"}"', True), ('x = f"{ab"', True), ('x = f"""{a', None), ("x = 1", None),
])
def test_f_strings_are_read_with_the_3_12_grammar(line, broken):
    from kernelint.fstrings import malformed

    assert malformed(line) is broken


# --- a stalled -j worker -------------------------------------------------------------------------

STALLING_RUN = """
import sys, time
from pathlib import Path
from kernelint import runner
from kernelint.engine import Options
from kernelint.rules import all_rules

runner._STALL_S_PER_FILE = 2.0
real = runner._check_one

def check(job):  # forked workers inherit this: one file never finishes
    if job[0].endswith("stall.py"):
        time.sleep(3600)
    return real(job)

runner._check_one = check
options = Options(frozenset(rule.code for rule in all_rules()))
jobs = [(str(path), options, None) for path in sorted(Path(sys.argv[1]).glob("*.py"))]
for (path, _, _), result in zip(jobs, runner._run(jobs, 2)):
    print(Path(path).name, *[f"{f.code} {f.message}" for f in result[1]], sep="|")
"""


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="workers run only with two CPUs or more")
def test_a_stalled_worker_is_killed_and_its_file_reported(tmp_path):
    write(tmp_path, {f"f{i:02d}.py": KERNEL for i in range(40)} | {"stall.py": KERNEL})
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", STALLING_RUN, str(tmp_path)], capture_output=True, text=True,
                            timeout=TIMEOUT)  # without the watchdog: no answer, ever
    assert result.returncode == 0, result.stderr
    rows = dict(line.split("|", 1) for line in result.stdout.splitlines())
    assert rows.pop("stall.py") == ("KL002 file not checked: the worker process checking it gave no answer "
                                    "in 2 s, 2 times, and was killed")
    assert len(rows) == 40 and all(row.startswith("KL003 ") for row in rows.values())
    print(f"stalled worker handled in {time.monotonic() - started:.1f} s")
