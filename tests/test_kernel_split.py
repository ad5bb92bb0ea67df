"""Per-kernel work shared with a forked process (``kernelint/kernel_split.py``), as the language
server shares it: the findings equal a check in one process, in the same order, whether the
child answers, fails, or a rule breaks in it."""
from __future__ import annotations

import os

import pytest

from kernelint import engine, kernel_split
from test_kernel_reuse import SOURCE, _bundled_multi_kernel_files, _edits, _options

pytestmark = pytest.mark.skipif(not kernel_split.available(), reason="needs os.fork and two cores")


@pytest.fixture
def split(monkeypatch):
    """Kept findings and a fork for any file with a kernel (no size threshold); yields the
    number of forks made so far."""
    forks = []
    real = kernel_split.start

    def counted(*args):
        helper = real(*args)
        if helper is not None:
            forks.append(helper)
        return helper

    monkeypatch.setattr(kernel_split, "_MIN_LINES", 0)
    monkeypatch.setattr(kernel_split, "start", counted)
    engine.keep_kernel_findings(True)
    yield forks
    engine.keep_kernel_findings(False)
    engine.split_kernel_work(False)


def _one_process(path, source) -> list:
    engine.split_kernel_work(False)
    engine.keep_kernel_findings(True)
    try:
        return engine.check_source(str(path), source, _options())
    finally:
        engine.split_kernel_work(True)
        engine.keep_kernel_findings(True)


def test_a_forked_half_gives_the_same_findings(tmp_path, split):
    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    expected = _one_process(path, SOURCE)
    assert {f.code for f in expected} >= {"KL103", "KL117"}
    engine.split_kernel_work(True)
    assert engine.check_source(str(path), SOURCE, _options()) == expected
    assert len(split) == 1 and split[0].owned


def test_bundled_files_split_and_kept_give_what_one_process_gives(split):
    files = _bundled_multi_kernel_files()
    compared = 0
    for path in files:
        source = path.read_text(encoding="utf-8")
        for text in [source, *_edits(source)]:
            expected = _one_process(path, text)
            engine.keep_kernel_findings(True)  # nothing kept: every kernel is fresh
            assert engine.check_source(str(path), text, _options()) == expected, path
            compared += 1
    assert compared >= 4 * 50 and len(split) >= 50


def test_a_child_that_fails_leaves_its_kernels_to_the_parent(tmp_path, split, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    expected = _one_process(path, SOURCE)
    parent = os.getpid()
    real = engine._answer

    def dies_in_the_child(file):
        answer = real(file)
        return lambda ctx, rule, kernel: os._exit(3) if os.getpid() != parent else answer(ctx, rule, kernel)

    monkeypatch.setattr(engine, "_answer", dies_in_the_child)
    engine.split_kernel_work(True)
    engine.keep_kernel_findings(True)
    assert engine.check_source(str(path), SOURCE, _options()) == expected
    assert len(split) == 1


def test_a_rule_that_breaks_breaks_as_it_does_in_one_process(tmp_path, split, monkeypatch):
    """A rule whose ``check_kernel`` raises is one internal-error finding, fork or not."""
    from kernelint.rules import all_rules

    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    rule = next(r for r in all_rules() if r.code == "KL103")

    def broken(self, kernel, ctx):
        if kernel.name == "scale_kernel":
            raise ValueError("no")
        return []

    monkeypatch.setattr(rule, "check_kernel", broken)
    expected = _one_process(path, SOURCE)
    assert any("rule KL103" in f.message and "ValueError: no" in f.message for f in expected)
    engine.split_kernel_work(True)
    engine.keep_kernel_findings(True)
    assert engine.check_source(str(path), SOURCE, _options()) == expected
    assert len(split) == 1


def _many_kernels(copies: int) -> str:
    """``SOURCE``'s kernels and launchers ``copies`` times over, renamed apart (21 kernel lines a
    copy)."""
    import re

    names = ("_block_start", "row_sum_kernel", "offset_kernel", "scale_kernel", "row_sums", "shifted", "scaled")
    head, body = SOURCE.split("import triton.language as tl\n", 1)
    parts = [head + "import triton.language as tl\n"]
    for i in range(copies):
        parts.append(re.sub(r"\b(%s)\b" % "|".join(names), lambda m: f"{m.group(1)}_{i}", body))
    return "".join(parts)


def test_the_server_forks_and_publishes_what_one_process_finds(tmp_path, monkeypatch):
    """Through ``kernelint server``: opening a file with 600+ kernel lines, then an edit every
    kernel reads, publish what a check in one process finds, and nothing goes to stderr."""
    from kernelint.frontend import check_with_project_config
    from test_server import Client

    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "many.py"
    source = _many_kernels(40)
    path.write_text(source)
    forks = []
    real = kernel_split.start
    monkeypatch.setattr(kernel_split, "start", lambda *args: forks.append(real(*args)) or forks[-1])
    engine.keep_kernel_findings(True)
    engine.split_kernel_work(True)
    try:
        engine.check_source(str(path), source, _options())
    finally:
        engine.keep_kernel_findings(False)
        engine.split_kernel_work(False)
    assert len(forks) == 1 and forks[0] is not None  # the server's checks below fork as this one did
    every = source.replace("import triton.language as tl\n", "import triton.language as tl\ntl = tl\n", 1)
    client = Client(tmp_path)
    try:
        client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.notify("initialized")
        client.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "python",
                                                                "version": 1, "text": source}})
        opened = client.diagnostics(path.as_uri(), 1)
        client.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": 2},
                                                 "contentChanges": [{"text": every}]})
        changed = client.diagnostics(path.as_uri(), 2)
        client.request("shutdown")
        client.notify("exit")
        assert client.process.wait(timeout=60) == 0
        assert client.process.stderr.read().decode() == ""
    finally:
        client.close()
    for published, text in ((opened, source), (changed, every)):
        expected = check_with_project_config(str(path), text)
        assert len(expected) >= 15
        assert sorted((d["range"]["start"]["line"] + 1, d["code"]) for d in published) \
            == sorted((f.line, f.code) for f in expected)


def test_a_failure_while_keying_drops_what_was_kept_and_the_server_goes_on(monkeypatch, capsys):
    from kernelint.lsp.server import Server
    from kernelint.reuse import KernelFindings

    engine.keep_kernel_findings(True)
    try:
        monkeypatch.setattr(KernelFindings, "settle", lambda self: 1 / 0)
        before = engine._KEPT
        Server._settle(Server.__new__(Server))
        assert engine._KEPT is not None and engine._KEPT is not before
        assert "keeping findings failed: ZeroDivisionError" in capsys.readouterr().err
    finally:
        engine.keep_kernel_findings(False)


def test_a_child_that_answers_too_little_leaves_its_kernels_to_the_parent(tmp_path, split, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "ops.py"
    path.write_text(SOURCE)
    expected = _one_process(path, SOURCE)
    real = kernel_split._child
    monkeypatch.setattr(kernel_split, "_child", lambda ctx, rules, reuse, owned, *rest:
                        real(ctx, rules, reuse, set(sorted(owned)[1:]), *rest))
    engine.split_kernel_work(True)
    engine.keep_kernel_findings(True)
    assert engine.check_source(str(path), SOURCE, _options()) == expected
    assert len(split) == 1
