"""Determinism and the cache under abuse: a corrupt, hostile or concurrently written cache never
breaks a run or serves a wrong finding, and the answer never depends on -j, the cache or the run."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_cache import BROKEN, FIXED, cache_dir, checked, codes, run  # noqa: F401 - fixtures
from test_cli import write

from kernelint import cache

TIMEOUT = 300


def _rewrite_entry(cache_dir: Path, path: Path, rows) -> None:
    index = cache_dir / cache.INDEX
    data = json.loads(index.read_text())
    data["entries"][str(path)][1] = rows
    index.write_text(json.dumps(data))


GOOD_ROW = [4, 1, 4, 1, "KL001", "syntax-error", "error", "high", "file does not parse", None,
            [["k.py", 9, 1, 9, 5, "again"]], [["a fact", None], ["a fact at a place", ["k.py", 2, 1, 2, 3, ""]]],
            "a cause"]


def _row(**changes):
    names = ["line", "column", "end_line", "end_column", "code", "name", "severity", "confidence", "message",
             "fix", "related", "facts", "cause"]
    return [changes.get(name, value) for name, value in zip(names, GOOD_ROW)]


@pytest.mark.parametrize("rows", [
    [_row(line="4")],  # a string where a line number belongs: used to exit 2 on every run
    [_row(line=None)],
    [_row(line=4.0)],
    [_row(line=True)],
    [_row(column=-1)],
    [_row(message=None)],
    [_row(severity="fatal")],
    [_row(code="KL999")],
    [_row()[:8]],
    [_row()[:10]],  # a row of cache format 2 or 3: no related sites, facts or cause
    [_row(related=[["k.py", "9", 1, 9, 5, ""]])],
    [_row(related=[["k.py", 9, 1, 9, 5]])],
    [_row(related=None)],
    [_row(facts=[["a fact"]])],
    [_row(facts=[[3, None]])],
    [_row(facts=[["a fact", ["k.py", 2]]])],
    [_row(cause=7)],
    [None],
    [[]],
    "rows",
    None,
    {"a": 1},
    [_row(), 3.5],
])
def test_a_wrongly_typed_row_is_a_miss_and_is_rewritten(tmp_path, cache_dir, checked, rows):
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    first = run([path])
    _rewrite_entry(cache_dir, path, rows)
    assert run([path]) == first  # checked again, not served
    assert checked == [str(path)] * 2
    assert run([path]) == first and checked == [str(path)] * 2  # rewritten: the third run is a hit


def test_a_well_formed_row_decodes_with_its_related_sites_facts_and_cause():
    (finding,) = cache._decode("k.py", [GOOD_ROW])
    assert [(s.path, s.line, s.message) for s in finding.related] == [("k.py", 9, "again")]
    assert [f.text for f in finding.facts] == ["a fact", "a fact at a place"]
    assert finding.facts[0].site is None and finding.facts[1].site.line == 2
    assert finding.cause == "a cause"
    assert cache._encode([finding]) == [GOOD_ROW]


def _write_index(cache_dir: Path, text: str) -> None:
    cache_dir.mkdir(parents=True, exist_ok=True)
    (cache_dir / cache.INDEX).write_text(text)


@pytest.mark.parametrize("make", [
    lambda d: _write_index(d, "[" * 100_000 + "]" * 100_000),
    lambda d: _write_index(d, '{"entries": ' + "{\"a\":" * 50_000 + "1" + "}" * 50_000 + "}"),
    lambda d: _write_index(d, '{"fingerprint": "x", "entries": {"k.py": '),  # truncated
    lambda d: _write_index(d, "\0" * 1000),
    lambda d: (d.mkdir(parents=True), (d / cache.INDEX).mkdir()),
    lambda d: (d.mkdir(parents=True), (d / cache.INDEX).symlink_to("/dev/zero")),
    lambda d: (d.mkdir(parents=True), os.mkfifo(d / cache.INDEX)),
], ids=["deep-list", "deep-dict", "truncated", "nul-bytes", "directory", "dev-zero", "fifo"])
def test_a_hostile_index_is_ignored_quickly(tmp_path, cache_dir, make):
    if not os.path.exists("/dev/zero") or not hasattr(os, "mkfifo"):
        pytest.skip("needs /dev/zero and FIFOs")
    make(cache_dir)
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    started = time.monotonic()
    assert codes(run([path])) == [(4, "KL001")]
    assert time.monotonic() - started < 30


def test_the_right_fingerprint_with_a_wrong_entries_type(tmp_path, cache_dir, checked):
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    run([path])
    index = cache_dir / cache.INDEX
    data = json.loads(index.read_text())
    for entries in ([], "x", None, {str(path): "digest"}, {str(path): [1, 2]}, {str(path): [None, []]}):
        data["entries"] = entries
        index.write_text(json.dumps(data))
        assert codes(run([path])) == [(4, "KL001")]


def test_a_change_that_keeps_size_and_mtime_is_checked_again(tmp_path, cache_dir, checked):
    """The key is the content: the same length and a restored mtime do not hide an edit."""
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    assert codes(run([path])) == [(4, "KL001")]
    stat = path.stat()
    edited = BROKEN.replace("kernel(x:\n    pass", "kernel(x):\n   pass")  # fixed, same length
    assert len(edited) == len(BROKEN)
    path.write_text(edited)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert codes(run([path])) == []
    assert checked == [str(path)] * 2


# --- whole runs: -j, formats, repeated and concurrent runs ------------------------------------

def _project(root: Path) -> Path:
    """Files with findings of several tool rules, in several folders (some need workers)."""
    files = {}
    for i in range(40):
        files[f"pkg{i % 4}/m{i:02d}.py"] = (BROKEN, FIXED, "import triton\n\nx = 1  # noqa: KL001\n",
                                            "import triton\n# kernelint: disable=no-such-rule\n")[i % 4]
    return write(root, files)


def _kernelint(root: Path, *args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "kernelint", "check", "--select", "ALL", *args, "."], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _output(root: Path, *args: str, env: dict | None = None) -> str:
    process = _kernelint(root, *args, env=env)
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 1 and "Traceback" not in err, err
    return out


def _without_invocation(sarif: str) -> str:
    """SARIF records the command line, which names -j; everything else must match byte for byte."""
    data = json.loads(sarif)
    for run_ in data["runs"]:
        for invocation in run_.get("invocations", []):
            invocation.pop("commandLine", None)
            invocation.pop("arguments", None)
    return json.dumps(data)


@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
def test_output_is_byte_identical_across_runs_and_jobs(tmp_path, fmt):
    root = _project(tmp_path)
    outputs = {(jobs, n): _output(root, "--no-cache", "--format", fmt, "-j", str(jobs))
               for jobs in (1, 2, 8) for n in range(2 if jobs == 1 else 1)}
    assert outputs[(1, 0)] == outputs[(1, 1)]  # two runs: identical bytes, SARIF included
    if fmt == "sarif":
        outputs = {key: _without_invocation(text) for key, text in outputs.items()}
    assert len(set(outputs.values())) == 1, sorted(outputs)
    assert outputs[(1, 0)].strip()


def test_concurrent_runs_sharing_one_cache_equal_a_run_without_it(tmp_path):
    root = _project(tmp_path / "tree")
    reference = _output(root, "--no-cache", "--format", "json", "-j", "1")
    env = dict(os.environ, KERNELINT_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(2):  # a cold cache, then a warm one
        processes = [_kernelint(root, "--format", "json", "-j", "1", env=env) for _ in range(10)]
        for process in processes:
            out, err = process.communicate(timeout=TIMEOUT)
            assert process.returncode == 1 and out == reference, err
    assert not list((tmp_path / "cache").glob(".index-*.tmp"))


@pytest.mark.slow
def test_sixty_concurrent_runs_sharing_one_cache(tmp_path):
    root = _project(tmp_path / "tree")
    reference = _output(root, "--no-cache", "--format", "json", "-j", "1")
    env = dict(os.environ, KERNELINT_CACHE_DIR=str(tmp_path / "cache"))
    for _ in range(3):
        processes = [_kernelint(root, "--format", "json", "-j", "1", env=env) for _ in range(20)]
        assert all(p.communicate(timeout=TIMEOUT)[0] == reference for p in processes)
