"""`kernelint prove`'s environment probe: run where the caller's files cannot replace the
modules it imports, and an error (exit 2) when it gives no answer, never a run of "skipped"."""
from __future__ import annotations

import sys

import pytest

from kernelint.prove import cli as prove_cli

HIJACK = "import pathlib\npathlib.Path('{sentinel}').write_text('ran')\nraise SystemExit(3)\n"


def test_probe_ignores_modules_in_the_callers_folder(tmp_path, monkeypatch):
    sentinel = tmp_path / "hijacked"
    for name in ("argparse.py", "json.py", "platform.py"):
        (tmp_path / name).write_text(HIJACK.format(sentinel=sentinel))
    monkeypatch.chdir(tmp_path)
    environment = prove_cli.probe(["kernelint"], interpret=True)
    assert environment["importable"] == {"kernelint": True}
    assert environment["python"] == ".".join(map(str, sys.version_info[:3]))
    assert not sentinel.exists()


def test_a_probe_that_fails_is_an_error_not_skipped_pairs(tmp_path, monkeypatch):
    monkeypatch.setattr(prove_cli.sys, "executable", "/bin/false")
    with pytest.raises(prove_cli.ProveUsageError, match="environment probe .* failed with exit status 1"):
        prove_cli.probe(["torch"], interpret=True)


def test_prove_exits_2_when_its_probe_fails(monkeypatch, capsys):
    from kernelint.cli import _parser

    monkeypatch.setattr(prove_cli.sys, "executable", "/bin/false")
    args = _parser().parse_args(["prove", "--interpret", "KL104"])
    assert prove_cli.run(args) == 2
    err = capsys.readouterr().err
    assert "environment probe" in err and "skipped" not in err
