"""Check many files: per-file rule sets from the config, the on-disk cache, parallel processes.

Worker processes die with kernelint: each asks the kernel to kill it when its parent dies
(``PR_SET_PDEATHSIG`` on Linux) and also watches its parent's pid, so a SIGKILL to kernelint
leaves nothing running and nothing holding its stdout open; SIGTERM and SIGHUP stop the
workers before kernelint itself ends. A worker that dies (the OOM killer, a crash) loses only
its batch: the batch's files are checked again one at a time in a new worker, and a file whose
worker dies twice is reported as KL002 instead of taking the run down.
"""
from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from multiprocessing.connection import wait
from pathlib import Path

from kernelint.cache import Cache, cache_directory, config_key, digest
from kernelint.versions import TargetsOfBatch
from kernelint.config import Settings, codes_for_file, selected_codes
from kernelint.engine import INTERNAL_ERROR, Options, check_file, check_source, decode
from kernelint.findings import Finding
from kernelint.grouping import group_across_files
from kernelint.model.project import facts
from kernelint.model.project import index as project_index
from kernelint.reading import Unreadable, read_bytes
from kernelint.rules import all_rules, find_rule

#: Below this many files to check, starting worker processes costs more than it saves.
_PARALLEL_THRESHOLD = 32
#: A file whose worker process died this many times is reported as not checked.
_WORKER_DEATHS_PER_FILE = 2
#: A worker that has not answered for this long per file of its batch is stalled (a rule looping,
#: a process stopped): it is killed, and its files are handled as a dead worker's. The slowest
#: file of the robustness corpus took 9.2 CPU s; this leaves room for a machine under load.
_STALL_S_PER_FILE = 120.0
#: How often a worker looks whether kernelint is still there (where the kernel cannot tell it).
_PARENT_POLL_S = 0.2
#: Signals that end kernelint by default; during a parallel run they stop the workers first.
_ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

#: (path, options, config key or None when not caching)
_Job = tuple[str, Options, "str | None"]
#: (cache digest or None, findings, facts read from other files: key -> hash)
_Result = tuple["str | None", list[Finding], dict]


def usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _check_one(job: _Job) -> _Result:
    """Findings of one file, and the cache digest of the bytes they were computed from (the
    collector is paused while it is checked: ``engine.check_source``)."""
    path, options, key = job
    if key is None:
        return None, check_file(path, options), {}
    try:
        data = read_bytes(path)
    except Unreadable:
        return None, check_file(path, options), {}  # reports why; not cached
    reads: dict[str, str] = {}
    findings = check_source(path, decode(data), options, reads=reads)
    return digest(key, data), findings, reads


# --- worker side ---------------------------------------------------------------------------

def _die_with_parent(parent_pid: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(_PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="kernelint-parent-watch", daemon=True).start()


def _serve(connection, parent_pid: int) -> None:
    """A worker: check each batch of jobs it is sent until told to stop (None) or orphaned."""
    for number in _ENDING_SIGNALS:
        signal.signal(number, signal.SIG_DFL)
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent(parent_pid)
    _hold(signal.SIG_UNBLOCK)  # held by the parent while it forked this worker
    # What the worker inherited (imports, rules, the project index) is never garbage here: out
    # of the collector's sight, a full collection no longer traces it (about a second of CPU
    # per worker on the corpus).
    gc.freeze()
    while True:
        try:
            batch = connection.recv()
        except (EOFError, OSError):
            return
        if batch is None:
            return
        connection.send([_check_one(job) for job in batch])


# --- parent side ---------------------------------------------------------------------------

class _Worker:
    def __init__(self, context, parent_pid: int, stretch: int) -> None:
        self.stretch = stretch  # which stretch of the batches it works through (``_Batches``)
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, parent_pid), daemon=True,
                                       name="kernelint-worker")
        self.process.start()
        child.close()
        self.batch: list[int] | None = None
        self.deadline = float("inf")  # when its batch's answer is overdue
        self.stalled = False

    def send(self, batch: list[int], jobs: list[_Job]) -> bool:
        self.batch = batch
        self.deadline = time.monotonic() + _STALL_S_PER_FILE * len(batch)
        try:
            self.connection.send([jobs[i] for i in batch])
            return True
        except (OSError, ValueError):
            return False


def _stop(workers: list[_Worker]) -> None:
    """End every worker now (they hold nothing worth waiting for: the parent owns the cache)."""
    for worker in workers:
        if worker.process.is_alive():
            worker.process.terminate()
    deadline = time.monotonic() + 1.0
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join(1.0)
        worker.connection.close()
    workers.clear()


def _not_checked(path: str, options: Options, exitcode, stalled: bool = False) -> list[Finding]:
    if INTERNAL_ERROR not in options.codes:
        return []
    rule = find_rule(INTERNAL_ERROR)
    how = f"killed by signal {-exitcode}" if isinstance(exitcode, int) and exitcode < 0 else f"exit status {exitcode}"
    message = (f"file not checked: the worker process checking it died "
               f"{_WORKER_DEATHS_PER_FILE} times ({how}, e.g. out of memory)")
    if stalled:
        message = (f"file not checked: the worker process checking it gave no answer in "
                   f"{_STALL_S_PER_FILE:g} s, {_WORKER_DEATHS_PER_FILE} times, and was killed")
    return [Finding(path, 1, 1, 1, 1, rule.code, rule.name, rule.severity, rule.confidence, message)]


class _StopOnSignal:
    """While installed, SIGTERM/SIGHUP end the workers, then kernelint as the signal would."""

    def __init__(self, workers: list[_Worker]) -> None:
        self.workers = workers
        self.previous: dict[int, object] = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for number in _ENDING_SIGNALS:
                if signal.getsignal(number) == signal.SIG_DFL:
                    self.previous[number] = signal.signal(number, self._handle)
        return self

    def _handle(self, number, frame) -> None:
        _stop(self.workers)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)

    def __exit__(self, *exc) -> None:
        for number, handler in self.previous.items():
            signal.signal(number, handler)


class _Batches:
    """The files' batches, each worker keeping to its own stretch of the (path-ordered) list: a
    project's files then go mostly to one worker, which parses and models the project's modules
    once, instead of every worker doing so for the batches it happens to get. Worker ``k`` of
    ``n`` works through the ``k``-th ``n``-th of the batches in order; one whose stretch is done
    takes the last batch of the longest stretch left, so the load still balances at the end.
    (Round-robin batches cost the corpus about a sixth more CPU at ``-j2`` than one process.)"""

    def __init__(self, batches: list[list[int]], stretches: int) -> None:
        share = -(-len(batches) // stretches) if batches else 1
        self.stretches = [deque(batches[i:i + share]) for i in range(0, max(len(batches), 1), share)]
        self.stretches += [deque() for _ in range(stretches - len(self.stretches))]

    def __bool__(self) -> bool:
        return any(self.stretches)

    def take(self, stretch: int) -> list[int] | None:
        own = self.stretches[stretch]
        if own:
            return own.popleft()
        longest = max(self.stretches, key=len)
        return longest.pop() if longest else None

    def put_back(self, stretch: int, batches: list[list[int]]) -> None:
        """Batches to run next in ``stretch`` (a dead worker's files, retried)."""
        self.stretches[stretch].extendleft(reversed(batches))


def _parallel(jobs_to_run: list[_Job], workers_wanted: int) -> list[_Result]:
    count = len(jobs_to_run)
    results: list[_Result | None] = [None] * count
    # Small batches (about 48 per worker): the last one a worker holds when the other runs out
    # of work is short, so neither waits long at the end (8 per worker left about 2 s of CPU
    # imbalance on the corpus at -j2).
    size = max(1, count // (workers_wanted * 48))
    queue = _Batches([list(range(start, min(start + size, count))) for start in range(0, count, size)],
                     workers_wanted)
    deaths = [0] * count
    context = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else None)
    parent_pid = os.getpid()
    workers: list[_Worker] = []

    def give_work(worker: _Worker) -> None:
        batch = queue.take(worker.stretch)
        if batch is not None:
            if not worker.send(batch, jobs_to_run):
                lost(worker)
            return
        worker.batch = None
        try:
            worker.connection.send(None)
        except (OSError, ValueError):
            pass

    def lost(worker: _Worker) -> None:
        """``worker`` died holding ``worker.batch``: split the batch, or count the file's strike."""
        batch, worker.batch = worker.batch or [], None
        if worker.process.is_alive():  # its pipe broke but it lives on: it is out of the run
            worker.process.kill()
        worker.process.join(1.0)
        if len(batch) > 1:
            queue.put_back(worker.stretch, [[i] for i in batch])
        elif batch:
            index = batch[0]
            deaths[index] += 1
            if deaths[index] >= _WORKER_DEATHS_PER_FILE:
                path, options, _ = jobs_to_run[index]
                results[index] = (None, _not_checked(path, options, worker.process.exitcode, worker.stalled), {})
            else:
                queue.put_back(worker.stretch, [batch])
        workers.remove(worker)
        worker.connection.close()
        if queue:
            replacement = _start(context, parent_pid, worker.stretch)
            if replacement is not None:
                workers.append(replacement)
                give_work(replacement)

    with _StopOnSignal(workers):
        try:
            for stretch in range(min(workers_wanted, sum(map(len, queue.stretches)))):
                worker = _start(context, parent_pid, stretch)
                if worker is not None:
                    workers.append(worker)
            for worker in list(workers):
                give_work(worker)
            while True:
                busy = [w for w in workers if w.batch is not None]
                if not busy:
                    break
                timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
                ready = set(wait([w.connection for w in busy] + [w.process.sentinel for w in busy], timeout))
                for worker in busy:  # the watchdog: a stalled worker is killed and counts as dead
                    if worker.connection not in ready and time.monotonic() >= worker.deadline:
                        worker.stalled = True
                        worker.process.kill()
                        worker.process.join(5.0)
                        ready.add(worker.process.sentinel)
                for worker in busy:
                    if worker.connection in ready or worker.connection.poll():
                        try:
                            batch_results = worker.connection.recv()
                        except (EOFError, OSError):
                            lost(worker)
                            continue
                        for index, result in zip(worker.batch, batch_results):
                            results[index] = result
                        give_work(worker)
                    elif worker.process.sentinel in ready:
                        lost(worker)
        finally:
            _stop(workers)
    while queue:  # no worker process could be started: check what is left here
        for index in queue.take(0):
            results[index] = _check_one(jobs_to_run[index])
    return results  # type: ignore[return-value]


def _start(context, parent_pid: int, stretch: int) -> _Worker | None:
    """A new worker, or None. The interrupting signals are held while it is forked: one that
    arrived inside Python's at-fork callbacks would be printed and lost, not raised."""
    held = _hold(signal.SIG_BLOCK)
    try:
        return _Worker(context, parent_pid, stretch)
    except OSError:  # out of processes or memory: the run goes on with the workers it has
        return None
    finally:
        if held is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _hold(how) -> set | None:
    """Block (or unblock) SIGINT, SIGTERM and SIGHUP where the platform can; the old mask."""
    if not hasattr(signal, "pthread_sigmask"):
        return None
    return signal.pthread_sigmask(how, {signal.SIGINT, *_ENDING_SIGNALS})


def _run(jobs_to_run: list[_Job], jobs: int) -> list[_Result]:
    workers = min(jobs, usable_cpus())
    if workers <= 1 or len(jobs_to_run) < _PARALLEL_THRESHOLD:
        return [_check_one(job) for job in jobs_to_run]
    project_index.prepare((path for path, _, _ in jobs_to_run), split=True)  # once, before the workers fork
    return _parallel(jobs_to_run, workers)


def check_groups(groups: dict[Settings, list[str]], jobs: int, use_cache: bool = True) -> list[Finding]:
    """Findings of every file, each group under its own settings, sorted. One worker pool and
    one cache for the whole run, however many configs the files fall under. A cause whose sites
    are in several files (``grouping.project_cause``) is one finding, folded here once every
    file's findings are in, from the cache or a worker alike."""
    rules = all_rules()
    project_index.look_again()
    targets_for_settings = TargetsOfBatch()  # one answer per folder and settings for this run
    work: list[tuple[str, Options]] = []
    for settings, files in groups.items():
        selected = selected_codes(settings, rules)
        work.extend(
            (path, Options(codes_for_file(settings, selected, Path(path), rules), settings.target_arch,
                           targets_for_settings(path, settings)))
            for path in files
        )
    if not use_cache:
        results = _run([(path, options, None) for path, options in work], jobs)
        return group_across_files([f for _, batch, _ in results for f in batch], _project_of())

    cache = Cache(cache_directory(), facts.current)
    keys: dict[Options, str] = {}
    findings: list[Finding] = []
    misses: list[_Job] = []
    for path, options in work:
        key = keys.get(options)
        if key is None:
            key = keys[options] = config_key(options.codes, options.target_arch, options.target_versions)
        if cache.has(path):  # only then is reading the file here worth it
            try:
                cached = cache.get(path, digest(key, read_bytes(path)))
            except Unreadable:
                cached = None
            if cached is not None:
                findings.extend(cached)
                continue
        misses.append((path, options, key))
    for (path, _, _), (file_digest, batch, reads) in zip(misses, _run(misses, jobs)):
        if file_digest is not None:
            cache.put(path, file_digest, batch, reads)
        findings.extend(batch)
    cache.save()
    return group_across_files(findings, _project_of())


def _project_of():
    """path -> the project root it belongs to (``None`` outside any), one look per folder."""
    roots: dict[str, object] = {}

    def project_of(path: str):
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in roots:
            roots[folder] = project_index.project_root(path)
        return roots[folder]

    return project_of
