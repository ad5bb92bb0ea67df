"""The on-disk cache: reused only while the file, its effective config and kernelint are the same."""
from __future__ import annotations

import json
import threading

import pytest

import kernelint
from kernelint import cache, runner
from kernelint.cli import main
from kernelint.config import Settings

BROKEN = "import triton\n\n@triton.jit\ndef kernel(x:\n    pass\n"  # KL001 at line 4
FIXED = "import triton\n\n@triton.jit\ndef kernel(x):\n    pass\n"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_DIRECTORY, str(directory))
    return directory


@pytest.fixture
def checked(monkeypatch):
    """Paths the engine really checked (cache misses), per run."""
    seen: list[str] = []
    real = runner.check_source

    def counting(path, source, options, **kwargs):
        seen.append(path)
        return real(path, source, options, **kwargs)

    monkeypatch.setattr(runner, "check_source", counting)
    return seen


def run(paths, settings=None, jobs=1, use_cache=True):
    settings = settings or Settings(select=("ALL",))
    return runner.check_groups({settings: [str(p) for p in paths]}, jobs, use_cache)


def codes(findings):
    return [(f.line, f.code) for f in findings]


def test_warm_run_reuses_findings_without_checking(tmp_path, cache_dir, checked):
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    cold = run([path])
    assert codes(cold) == [(4, "KL001")] and checked == [str(path)]
    checked.clear()
    assert run([path]) == cold
    assert checked == []
    assert (cache_dir / cache.INDEX).is_file()
    assert (cache_dir / ".gitignore").read_text().strip().endswith("*")


def test_changed_file_is_checked_again(tmp_path, cache_dir, checked):
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    run([path])
    path.write_text(FIXED)
    assert run([path]) == []
    path.write_text(BROKEN)  # back to the first content: its entry was replaced, not kept
    assert codes(run([path])) == [(4, "KL001")]
    assert checked == [str(path)] * 3


@pytest.mark.parametrize("changed", [
    Settings(select=("KL002",)),
    Settings(select=("ALL",), target_arch="sm_90"),
    Settings(select=("ALL",), per_file_ignores=(("k.py", ("KL001",)),)),
])
def test_changed_effective_config_is_checked_again(tmp_path, cache_dir, checked, changed):
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    run([path])
    changed = Settings(**{**changed.__dict__, "root": tmp_path})
    findings = run([path], changed)
    assert checked == [str(path)] * 2
    kept = "KL001" in runner.selected_codes(changed, runner.all_rules()) and not changed.per_file_ignores
    expected = [(4, "KL001")] if kept else []
    assert codes(findings) == expected


def test_new_kernelint_version_invalidates(tmp_path, cache_dir, checked, monkeypatch):
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    run([path])
    before = cache.fingerprint()
    monkeypatch.setattr(kernelint, "__version__", kernelint.__version__ + ".post1")
    assert cache.fingerprint() != before
    run([path])
    assert checked == [str(path)] * 2


def test_edited_kernelint_source_invalidates(tmp_path, monkeypatch):
    """A development install keeps its version while rules change: the fingerprint must not."""
    from kernelint import checkers

    fake = tmp_path / "checkers"
    fake.mkdir()
    rule = fake / "extra.py"
    rule.write_text("X = 1\n")
    monkeypatch.setattr(checkers, "__path__", [str(fake)])
    before = cache.fingerprint()
    rule.write_text("X = 22\n")
    assert cache.fingerprint() != before


@pytest.mark.parametrize("content", [
    "not json", "[]", '{"fingerprint": 3}',
    None,  # right fingerprint, entry of the wrong shape: filled in by the test
])
def test_corrupt_cache_is_ignored(tmp_path, cache_dir, checked, content):
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    run([path])
    index = cache_dir / cache.INDEX
    if content is None:
        data = json.loads(index.read_text())
        entry = data["entries"][str(path)]
        data["entries"][str(path)] = [entry[0], [["x"]]]
        content = json.dumps(data)
    index.write_text(content)
    assert codes(run([path])) == [(4, "KL001")]
    assert checked == [str(path)] * 2


def test_same_content_at_two_paths_reports_each_path(tmp_path, cache_dir):
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text(BROKEN)
    second.write_text(BROKEN)
    run([first, second])
    assert {f.path for f in run([first, second])} == {str(first), str(second)}


def test_parallel_workers_fill_the_same_cache_as_one_process(tmp_path, cache_dir, monkeypatch):
    monkeypatch.setattr(runner, "_PARALLEL_THRESHOLD", 2)
    paths = []
    for i in range(12):
        path = tmp_path / f"k{i}.py"
        path.write_text(BROKEN if i % 3 else FIXED)
        paths.append(path)
    parallel = run(paths, jobs=2)
    assert len(parallel) == 8
    assert run(paths, jobs=1) == parallel == run(paths, use_cache=False)
    entries = json.loads((cache_dir / cache.INDEX).read_text())["entries"]
    assert set(entries) == {str(p) for p in paths}


def test_concurrent_saves_leave_a_readable_index(tmp_path, cache_dir):
    path = tmp_path / "k.py"
    path.write_text(BROKEN)

    def save(n):
        c = cache.Cache(cache_dir)
        c.put(str(path), f"digest{n}", [])
        c.save()

    threads = [threading.Thread(target=save, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    data = json.loads((cache_dir / cache.INDEX).read_text())
    assert data["entries"][str(path)][0].startswith("digest")
    assert [p.name for p in cache_dir.iterdir() if p.name.endswith(".tmp")] == []


def test_unwritable_cache_directory_is_skipped(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(cache.ENV_DIRECTORY, str(blocker / "cache"))  # a file cannot hold a folder
    path = tmp_path / "k.py"
    path.write_text(BROKEN)
    assert codes(run([path])) == [(4, "KL001")]


def test_cli_no_cache_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(cache.ENV_DIRECTORY, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(BROKEN)
    assert main(["check", "k.py", "--no-cache"]) == 1
    assert not (tmp_path / cache.DIRECTORY).exists()
    assert main(["check", "k.py"]) == 1
    assert (tmp_path / cache.DIRECTORY / cache.INDEX).is_file()
    assert capsys.readouterr().out.count("KL001") == 2


@pytest.mark.parametrize("table, in_root", [("[tool.kernelint]\n", True), ("[project]\nname = 'x'\n", False)])
def test_default_directory_is_the_config_root_else_cwd(tmp_path, monkeypatch, table, in_root):
    monkeypatch.delenv(cache.ENV_DIRECTORY, raising=False)
    (tmp_path / "pyproject.toml").write_text(table)
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    assert cache.cache_directory() == (tmp_path if in_root else tmp_path / "src") / cache.DIRECTORY
