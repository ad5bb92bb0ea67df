"""Signals and worker processes, with real subprocesses and real signals: whatever ends
kernelint ends its workers too (nothing left running, nothing left holding its output open),
a worker that dies costs no finding, and the cache stays right for the next run."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_reliability import FOLDED_KERNEL

from kernelint import runner
from kernelint.engine import Options
from kernelint.rules import all_rules

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads worker pids from /proc"),
    pytest.mark.full,  # minutes of real kernelint runs on two cores: CI's full tier (.ci/run)
]

#: Generous: the CI machine has two cores and runs other tests at the same time.
TIMEOUT = 300
#: Workers must be gone within this long of kernelint's end (recorded: under 0.1 s on an idle
#: machine); generous, because two busy cores can leave a dying process unscheduled for seconds.
GONE_S = 30.0
FILES = runner._PARALLEL_THRESHOLD + 4  # fewer files are checked without workers
KERNELS_PER_FILE = 30  # about 0.1 s of checking per file: the run lasts seconds, not milliseconds


def _slow_module(seed: int) -> str:
    head, rest = FOLDED_KERNEL.format(block="64").split("BLOCK = 64\n", 1)
    copies = (rest.replace("matmul_kernel", f"matmul_kernel_{seed}_{i}").replace("def run(", f"def run_{i}(")
              for i in range(KERNELS_PER_FILE))
    return head + "BLOCK = 64\n" + "".join(copies)


@pytest.fixture(scope="module")
def slow_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("slow")
    for seed in range(FILES):
        (root / f"f{seed:02d}.py").write_text(_slow_module(seed))
    return root


@pytest.fixture(scope="module")
def reference(slow_tree) -> str:
    """The JSON report of one plain sequential run without the cache."""
    command = [sys.executable, "-m", "kernelint", "check", "--no-cache", "-j", "1", "--select", "ALL", "--format",
               "json", "."]
    result = subprocess.run(command, cwd=slow_tree, capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 1 and json.loads(result.stdout), result.stderr
    return result.stdout


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def state(pid: int) -> str | None:
    """The process's state letter from /proc (R, S, T stopped, Z zombie ...); None once reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def running(pid: int) -> bool:
    return state(pid) not in (None, "Z", "X")


def wait_until(condition, what: str, seconds: float = TIMEOUT) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.01)


def hold_mid_run(process: subprocess.Popen, workers: list[int]) -> None:
    """Stop kernelint (SIGSTOP) while its workers are alive, so that a signal sent now is sure to
    arrive mid-run whatever the load: a stopped kernelint hands out no more work and cannot
    finish, and its workers are stopped only by kernelint itself at the end of the run. The
    caller sends its signal, then ``resume`` lets kernelint take it."""
    os.kill(process.pid, signal.SIGSTOP)
    wait_until(lambda: state(process.pid) in ("T", "t"), "kernelint stopped")
    assert all(running(pid) for pid in workers), "the workers ended before kernelint was stopped"


def resume(process: subprocess.Popen) -> None:
    try:
        os.kill(process.pid, signal.SIGCONT)
    except ProcessLookupError:  # SIGKILL needs no resuming
        pass


def start(root: Path, *args: str, cache: Path | None = None) -> subprocess.Popen:
    env = dict(os.environ)
    if cache is not None:
        env["KERNELINT_CACHE_DIR"] = str(cache)
    command = [sys.executable, "-m", "kernelint", "check", "-j", "2", "--select", "ALL", "--format", "json",
               *args, "."]
    return subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=default_signal_handling)


def default_signal_handling() -> None:
    """kernelint as a terminal starts it. A process started in the background by a shell without
    job control, or under nohup, inherits SIGINT and SIGHUP ignored, and kernelint rightly keeps
    them ignored (Python does not install its Ctrl-C handler over an inherited SIG_IGN): a test
    run that way used to see kernelint finish its run, exit 1, after the signal."""
    for number in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)


def wait_for_workers(process: subprocess.Popen, count: int = 2) -> list[int]:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        workers = children(process.pid)
        if len(workers) >= count:
            return workers
        assert process.poll() is None, "kernelint ended before its workers started"
        time.sleep(0.01)
    raise AssertionError("no worker processes appeared")


def gone_within(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = [pid for pid in pids if running(pid)]
        if not left:
            return []
        time.sleep(0.02)
    return [pid for pid in pids if running(pid)]


def cleanup(pids: list[int]) -> None:
    for pid in pids:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def cached_run(root: Path, cache: Path) -> str:
    process = start(root, cache=cache)
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 1, err
    return out


SIGNALS = {"SIGINT": 2, "SIGTERM": -signal.SIGTERM, "SIGHUP": -signal.SIGHUP, "SIGKILL": -signal.SIGKILL}


@pytest.mark.parametrize("name", sorted(SIGNALS))
def test_a_signal_to_kernelint_ends_every_worker_and_keeps_the_cache_right(slow_tree, reference, tmp_path, name):
    cache = tmp_path / "cache"
    process = start(slow_tree, cache=cache)
    workers = wait_for_workers(process)
    try:
        hold_mid_run(process, workers)
        os.kill(process.pid, getattr(signal, name))
        sent = time.monotonic()
        resume(process)
        out, err = process.communicate(timeout=TIMEOUT)  # returns only once nobody holds stdout/stderr
        assert process.returncode == SIGNALS[name], err
        assert "Traceback" not in err
        assert gone_within(workers, GONE_S) == []
        print(f"\n{name}: output closed and {len(workers)} workers gone {time.monotonic() - sent:.2f} s after it")
        assert not list(cache.glob(".index-*.tmp"))
        assert cached_run(slow_tree, cache) == reference  # no half-written entry is served
    finally:
        cleanup(workers)
        if process.poll() is None:
            process.kill()


def test_a_worker_killed_mid_run_costs_nothing(slow_tree, reference):
    """As the OOM killer would: SIGKILL to one worker. Its files are checked again."""
    process = start(slow_tree, "--no-cache")
    workers = wait_for_workers(process)
    try:
        hold_mid_run(process, workers)
        os.kill(workers[0], signal.SIGKILL)
        resume(process)
        out, err = process.communicate(timeout=TIMEOUT)
        assert process.returncode == 1, err
        assert "Traceback" not in err
        assert out == reference
    finally:
        cleanup(workers + children(process.pid))


def _killing_check(real):
    def check(job):
        if job[0].endswith("killer.py"):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(job)
    return check


def test_a_file_that_kills_its_worker_twice_is_reported_as_not_checked(tmp_path, monkeypatch):
    """In-process (the forked workers inherit the patched check): one file always kills the
    worker that checks it; it becomes KL002 and every other file is still checked."""
    monkeypatch.setattr(runner, "_check_one", _killing_check(runner._check_one))
    options = Options(frozenset(rule.code for rule in all_rules()))
    jobs = [(str(tmp_path / f"f{i:02d}.py"), options, None) for i in range(40)]
    for path, _, _ in jobs:
        Path(path).write_text("import triton\n\nx = 1  # noqa: KL001\n")  # one KL003 each
    killer = str(tmp_path / "killer.py")
    Path(killer).write_text("import triton\n")
    jobs.insert(17, (killer, options, None))
    results = runner._run(jobs, 2)
    by_path = {job[0]: result[1] for job, result in zip(jobs, results)}
    assert [f.code for f in by_path[killer]] == ["KL002"]
    assert "died 2 times" in by_path[killer][0].message and "signal 9" in by_path[killer][0].message
    assert all([f.code for f in by_path[path]] == ["KL003"] for path, _, _ in jobs if path != killer)


def test_workers_are_stopped_after_a_normal_run(tmp_path):
    for seed in range(FILES):
        (tmp_path / f"f{seed}.py").write_text("import triton\n\nx = 1  # noqa: KL001\n")
    before = set(children(os.getpid()))
    options = Options(frozenset(rule.code for rule in all_rules()))
    runner._run([(str(path), options, None) for path in sorted(tmp_path.glob("*.py"))], 2)
    assert gone_within(sorted(set(children(os.getpid())) - before), GONE_S) == []


#: Moments after the workers start at which SIGINT is sent (seconds); CI takes three.
MOMENTS = [0.0, 0.3, 1.0]
MOMENTS_SLOW = [round(0.15 * i, 2) for i in range(18)]


def _interrupt_at(root: Path, delay: float) -> None:
    process = start(root, "--no-cache")
    workers = wait_for_workers(process)
    try:
        time.sleep(delay)  # a moment, not a condition: the run may have finished (exit 1)
        os.kill(process.pid, signal.SIGINT)
        sent = time.monotonic()
        out, err = process.communicate(timeout=TIMEOUT)
        assert process.returncode in (1, 2), err  # 1: the run had already finished
        assert "Traceback" not in err
        assert gone_within(workers, GONE_S) == []
        print(f"\nSIGINT at +{delay} s: exit {process.returncode}, all gone {time.monotonic() - sent:.2f} s after it")
    finally:
        cleanup(workers)


@pytest.mark.parametrize("delay", MOMENTS)
def test_ctrl_c_at_several_moments(slow_tree, delay):
    _interrupt_at(slow_tree, delay)


@pytest.mark.slow
@pytest.mark.parametrize("delay", MOMENTS_SLOW)
def test_ctrl_c_at_eighteen_moments(slow_tree, delay):
    _interrupt_at(slow_tree, delay)


def test_jobs_are_capped_at_the_cpus(monkeypatch):
    """``-j 1000`` used to start 1,000 processes (29.5 s against 9.4 s at -j 2)."""
    started: list[int] = []
    monkeypatch.setattr(runner, "_parallel", lambda jobs, workers: started.append(workers) or [])
    options = Options(frozenset({"KL001"}))
    runner._run([("x.py", options, None)] * (runner._PARALLEL_THRESHOLD + 1), 1000)
    assert started == [runner.usable_cpus()] or (started == [] and runner.usable_cpus() == 1)
