"""kernelint never runs what it reads: files whose import or evaluation would write a file, run
a shell command or open a socket are checked through the CLI, flake8 and pylint, and none of
it happens."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

TIMEOUT = 300


def _payload(sentinel: Path, port: int) -> str:
    """Statements that leave a trace (naming the file that ran) wherever Python evaluates them."""
    return (
        f"open({str(sentinel)!r}, 'a').write(__file__ + '\\n')\n"
        f"__import__('os').system('echo shell >> {sentinel}')\n"
        f"__import__('socket').create_connection(('127.0.0.1', {port}), timeout=1)\n"
    )


def _indent(text: str, prefix: str = "    ") -> str:
    return "".join(prefix + line + "\n" for line in text.splitlines())


def _files(sentinel: Path, port: int) -> dict[str, str]:
    payload = _payload(sentinel, port)
    one_line = "; ".join(payload.strip().splitlines())
    kernel = "@triton.jit\ndef kernel(x_ptr, BLOCK: tl.constexpr):\n    tl.store(x_ptr, tl.load(x_ptr))\n"
    head = "import triton\nimport triton.language as tl\n"
    return {
        # module level, as an import would run it
        "pkg/__init__.py": head + payload,
        "pkg/module_level.py": head + payload + kernel,
        # evaluated when a def or class statement runs: defaults, decorators, annotations, bodies
        "pkg/defaults.py": head + f"def f(x=({one_line})):\n    pass\n" + kernel,
        "pkg/decorator.py": head + f"@(lambda f: ({one_line}, f)[1])\n" + kernel,
        "pkg/annotations.py": head + f"x: ({one_line}) = 1\n" + kernel,
        "pkg/class_body.py": head + "class C:\n" + _indent(payload) + kernel,
        # kernel launch code and constexpr expressions the model folds
        "pkg/launch.py": head + kernel + f"BLOCK = ({one_line}) or 64\n"
                         "def run(x):\n    kernel[(1,)](x, BLOCK=BLOCK)\n",
        "pkg/main_guard.py": head + kernel + "if __name__ == '__main__':\n" + _indent(payload),
        # files Python itself runs on its own: conftest, setup, sitecustomize, usercustomize, .pth
        "conftest.py": head + payload,
        "setup.py": head + payload,
        "sitecustomize.py": payload,
        "usercustomize.py": payload,
        "evil.pth": f"import os; os.system('echo pth >> {sentinel}')\n",
        # modules kernelint (and Python under ``-m``) import by name, placed where cwd shadows them
        "json.py": payload,
        "pathspec.py": payload,
        "argparse.py": payload,
        "tokenize.py": payload,
        "triton.py": payload,
        # a coding cookie names a codec: looking it up must not import anything from here
        "pkg/codec.py": "# -*- coding: pkg -*-\n" + head + payload,
    }


@pytest.fixture
def trap(tmp_path):
    """A project of booby-trapped files, a sentinel path and a listening socket."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    sentinel = tmp_path / "SENTINEL"
    root = tmp_path / "project"
    for name, text in _files(sentinel, port).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    yield root, sentinel, listener
    listener.close()


def _nothing_ran(sentinel: Path, listener: socket.socket) -> None:
    assert not sentinel.exists(), sentinel.read_text()
    try:
        connection, _ = listener.accept()
    except (socket.timeout, BlockingIOError):
        return
    connection.close()
    raise AssertionError("a checked file opened a socket")


#: The host linters are started the way their console scripts start them: without the working
#: directory first on sys.path (``python -c`` and ``-m`` would put it there, and the trap's
#: json.py would then be the host linter's own import, not kernelint's doing).
_WITHOUT_CWD = "import sys; sys.path.pop(0); "


def _run(root: Path, *command: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONSTARTUP="")
    result = subprocess.run([sys.executable, *command], cwd=root, capture_output=True, text=True,
                            timeout=TIMEOUT, env=env)
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    return result


def test_cli_runs_nothing(trap):
    root, sentinel, listener = trap
    for jobs in ("1", "2"):
        result = _run(root, "-m", "kernelint", "check", "--no-cache", "--select", "ALL", "-j", jobs, ".")
        assert result.returncode in (0, 1), result.stderr
    _nothing_ran(sentinel, listener)


def test_cli_runs_nothing_when_files_are_named(trap):
    root, sentinel, listener = trap
    names = [str(p.relative_to(root)) for p in sorted(root.rglob("*.py"))]
    result = _run(root, "-m", "kernelint", "check", "--no-cache", "--select", "ALL", *names)
    assert result.returncode in (0, 1), result.stderr
    _nothing_ran(sentinel, listener)


@pytest.mark.full  # the real flake8/pylint: the full tier
def test_flake8_plugin_runs_nothing(trap):
    pytest.importorskip("flake8")
    root, sentinel, listener = trap
    result = _run(root, "-c", _WITHOUT_CWD + "from flake8.main.cli import main; sys.exit(main())",
                  "--select", "KL", "pkg", "conftest.py", "setup.py")
    assert result.returncode in (0, 1), result.stderr
    _nothing_ran(sentinel, listener)


@pytest.mark.full  # the real flake8/pylint: the full tier
def test_pylint_plugin_runs_nothing(trap):
    pytest.importorskip("pylint")
    root, sentinel, listener = trap
    result = _run(root, "-c", _WITHOUT_CWD + "from pylint import run_pylint; run_pylint()",
                  "--load-plugins=kernelint.pylint_plugin", "--persistent=n", "--disable=all",
                  "--enable=kernelint-internal-error", "pkg", "conftest.py", "setup.py")
    assert result.returncode & 32 == 0, result.stdout[-2000:]
    _nothing_ran(sentinel, listener)
