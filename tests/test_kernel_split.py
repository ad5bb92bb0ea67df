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
