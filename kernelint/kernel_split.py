"""Part of a file's per-kernel work in a forked process, for the language server.

A file checked whole (opened, or after an edit every kernel reads) runs the per-kernel rules on
every kernel: on mamba's ``ssd_chunk_scan.py`` that is about two thirds of a 146 ms check. The
server then forks once: the child takes whole components of the file's call graph (kernels that
name each other, which rules may look at together) holding closest to ``_SHARE`` of the fresh
kernels' lines, answers every per-kernel rule for them, and sends the answers back through a pipe. The
parent runs everything else meanwhile, and puts the child's answers where its own would have
been, so the findings are the same, in the same order, as a check in one process.

Nothing is shared after the fork: the child answers from the model as it was, and exits. A child
that fails, or is not done within ``_WAIT_S``, is stopped, and the engine checks the file again
in one process, reusing what the parent found. Only where ``os.fork`` exists, with two or more cores, and for a file whose
kernels need it (``_MIN_LINES``).
"""
from __future__ import annotations

import os
import pickle
import select
import warnings
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from kernelint.findings import Finding
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel
    from kernelint.reuse import FileCheck

#: Kernel lines to analyse below which a fork costs more than it saves: a fork, the child's first
#: writes to shared pages and the model facts both processes build are 5-10 ms. On 250 corpus
#: files, split against not: under 600 lines 1.08-1.32x the time, 600-1,000 0.95x, more 0.80x.
_MIN_LINES = 600
_WAIT_S = 30.0
#: The child's share of the kernel lines: the parent also runs the file-wide rules, about a third
#: of a check (mamba's ``ssd_chunk_scan.py``: 0.5 gave 127 ms, 0.65 107 ms, 0.8 125 ms).
_SHARE = 0.65


def available() -> bool:
    """A fork pays only on a second core; Windows has none to make."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return hasattr(os, "fork") and cores >= 2


class Helper:
    """The forked child's share of one check: which kernels it answers (places in
    ``ctx.kernels``), and its answers once asked for."""

    def __init__(self, owned: set[int], pid: int, pipe: int) -> None:
        self.owned = owned
        self._pid = pid
        self._pipe = pipe
        self._answers: dict | None = None

    def answers(self) -> dict | None:
        """``{"found": {(rule code, place): findings}, "reads": facts read from other files}``
        from the child, or None if it failed (waits for it the first time)."""
        if self._pid:
            self._answers = _collect(self._pid, self._pipe)
            self._pid = 0
        return self._answers

    def close(self) -> None:
        """Stop the child if its answers were never asked for (the check failed midway)."""
        if self._pid:
            os.kill(self._pid, 9)
            _collect(self._pid, self._pipe)
            self._pid = 0


def start(ctx: "FileContext", rules: list, reuse: "FileCheck",
          answer: Callable[["FileContext", object, "Kernel"], tuple["Finding", ...]]) -> Helper | None:
    """Fork a child for part of the kernels that ``rules`` must answer afresh, or None.
    ``answer(ctx, rule, kernel)`` is what the engine does for one kernel. The caller has found
    a fork ``available()`` (once, not per check)."""
    per_kernel = [r for r in rules if r.per_kernel]
    if not per_kernel:
        return None
    fresh = {i for i, kernel in enumerate(ctx.kernels) if any(_afresh(r, kernel, reuse) for r in per_kernel)}
    weight = {i: ctx.kernels[i].node.end_lineno - ctx.kernels[i].node.lineno + 1 for i in fresh}
    total = sum(weight.values())
    if total < _MIN_LINES:
        return None
    owned: set[int] = set()
    held, target = 0, total * _SHARE
    sized = [(sum(weight.get(i, 0) for i in group), group) for group in reuse.components()]
    for size, group in sorted(sized, key=lambda item: (-item[0], min(item[1]))):
        if size and abs(held + size - target) < abs(held - target):
            owned |= group
            held += size
    if not held or held == total:
        return None
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        with warnings.catch_warnings():  # 3.12+ warns of a fork beside the server's reader thread,
            warnings.simplefilter("ignore", DeprecationWarning)  # which the child never touches
            pid = os.fork()
    except OSError:  # no process to spare: the parent answers everything
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: answer, write, exit without running anything of the parent's
        os.close(read_end)
        _child(ctx, per_kernel, reuse, owned, answer, write_end)
    os.close(write_end)
    return Helper(owned, pid, read_end)


def _afresh(rule_class, kernel: "Kernel", reuse: "FileCheck") -> bool:
    """``rule_class`` answers ``kernel`` and has no kept answer for it (as ``engine._per_kernel``
    decides: the parent and the child decide alike)."""
    return kernel.dsl == rule_class.per_kernel and reuse.get(rule_class.code, kernel, keep=False) is None


def _child(ctx, per_kernel, reuse, owned, answer, pipe: int) -> None:
    status = 1
    try:
        found = {}
        for rule_class in per_kernel:
            rule = rule_class()
            for i in sorted(owned):
                kernel = ctx.kernels[i]
                if _afresh(rule_class, kernel, reuse):
                    found[rule_class.code, i] = answer(ctx, rule, kernel)
        view = ctx.__dict__.get("project")
        data = pickle.dumps({"found": found, "reads": dict(view.reads) if view is not None else {}})
        with os.fdopen(pipe, "wb") as out:
            out.write(data)
        status = 0
    finally:
        os._exit(status)


def _collect(pid: int, pipe: int) -> dict | None:
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([pipe], [], [], _WAIT_S)
            if not ready:
                os.kill(pid, 9)
                return None
            chunk = os.read(pipe, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(pipe)
        _, status = os.waitpid(pid, 0)
    if status != 0 or not chunks:
        return None
    try:
        return pickle.loads(b"".join(chunks))
    except Exception:
        return None
