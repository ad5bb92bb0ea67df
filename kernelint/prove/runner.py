"""Run a pair's kernels in child processes and judge the outcome against the pair's evidence class.

Every run is its own process group, started fresh: a crash, a sticky CUDA error or a hang stays
in it, and the whole group (compiler workers and any process the kernel file started included)
is killed when the run ends or its watchdog fires.
"""
from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from kernelint.prove.child import READY, RESULT
from kernelint.prove.manifest import Case, Pair
from kernelint.prove.text import describe_run, pair_outcome, pair_summary

#: Seconds a child may take to import, build inputs and compute the reference of one case. The
#: watchdog (``watchdog_s``) covers only the kernel itself, so a slow import is not a "hang".
SETUP_LIMIT_S = 600.0
_POLL_S = 0.05
_TAIL = 4000

VERDICTS = ("reproduced", "not-reproduced", "good-failed", "skipped")


@dataclass(frozen=True)
class Options:
    device: str = "cuda"
    interpret: bool = False
    #: Overrides every pair's ``watchdog_s``.
    timeout: float | None = None
    setup_limit_s: float = SETUP_LIMIT_S

    def watchdog(self, pair: Pair) -> float:
        return self.timeout if self.timeout is not None else pair.watchdog_s


_interrupted = threading.Event()


def interrupt() -> None:
    """Kill every run in flight (each loop notices within a poll) and start no more."""
    _interrupted.set()


def child_env(interpret: bool) -> dict[str, str]:
    """The parent's environment (PYTHONPATH for CUTLASS included), with kernelint importable and
    ``TRITON_INTERPRET`` set only for --interpret."""
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    source_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source_root, env.get("PYTHONPATH")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the child's whole process group (it leads its own session) and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


class _Lines:
    """Complete lines appended to a file the child writes, read incrementally."""

    def __init__(self, path: Path):
        self.path, self.offset, self.partial = path, 0, b""

    def read(self) -> list[str]:
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            chunk = handle.read()
        self.offset += len(chunk)
        *lines, self.partial = (self.partial + chunk).split(b"\n")
        return [line.decode("utf-8", "replace") for line in lines]


def _tail(out_path: Path, err_path: Path) -> str:
    """The end of the child's stderr, after the end of its stdout (a crash may be reported on either)."""
    out, err = out_path.read_bytes()[-_TAIL // 4:], err_path.read_bytes()[-_TAIL:]
    return ((b"[stdout] " + out + b"\n[stderr] " if out.strip() else b"") + err).decode("utf-8", "replace")


def _spawn(pair: Pair, variant: str, batch: list[Case], options: Options, on_start=None) -> dict[str, dict]:
    """Run ``batch`` in one child. Returns a record for every case that finished and for the one
    that was running (or being prepared) when the child died or was killed; later cases are left out.
    ``on_start(case_name)`` is called when a case's kernel is called (progress)."""
    if _interrupted.is_set():
        raise KeyboardInterrupt
    names = [case.name for case in batch]
    watchdog = options.watchdog(pair)
    with tempfile.TemporaryDirectory(prefix="kernelint-prove-") as work:
        channel, out_path, err_path = Path(work, "channel"), Path(work, "stdout"), Path(work, "stderr")
        channel.touch()
        command = [sys.executable, "-m", "kernelint.prove.child", "run", str(pair.directory.resolve()), variant,
                   *names, "--device", options.device, "--channel", str(channel)]
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=work,
                                    env=child_env(options.interpret), start_new_session=True)
        lines = _Lines(channel)
        payloads: dict[str, dict] = {}
        current, running_since, phase_start, killed = names[0], None, time.monotonic(), None
        try:
            while True:
                exited = proc.poll() is not None
                for line in lines.read():
                    if line.startswith(READY):
                        current, running_since = json.loads(line[len(READY):])["case"], time.monotonic()
                        if on_start:
                            on_start(current)
                    elif line.startswith(RESULT):
                        payload = json.loads(line[len(RESULT):])
                        payloads[payload.pop("case")] = payload
                        running_since, phase_start = None, time.monotonic()
                        current = next((n for n in names if n not in payloads), None)
                if exited or current is None:
                    break
                now = time.monotonic()
                if _interrupted.is_set():
                    killed = "interrupted"
                elif running_since is not None and now - running_since > watchdog:
                    killed = "watchdog"
                elif running_since is None and now - phase_start > options.setup_limit_s:
                    killed = "setup"
                if killed:
                    break
                time.sleep(_POLL_S)
        finally:
            kill_group(proc)
        stderr_tail = _tail(out_path, err_path)
    if killed == "interrupted":
        raise KeyboardInterrupt
    records = {name: _from_payload(payload, stderr_tail) for name, payload in payloads.items()}
    if current is not None and current not in records:
        records[current] = _lost(killed, running_since is not None, proc.returncode, watchdog, options, stderr_tail)
    return records


def _from_payload(payload: dict, stderr_tail: str) -> dict:
    if payload.get("status") == "ok":
        outcome = "ok" if payload.get("match") else "mismatch"
    else:
        outcome = "error" if payload.get("phase") in ("run", "bench") else "broken"
    record = {"outcome": outcome, **payload}
    if outcome != "ok" and stderr_tail:
        record["stderr_tail"] = stderr_tail
    if outcome in ("error", "broken") and "error_type" in payload:
        record["error_text"] = "\n".join((f"{payload['error_type']}: {payload['error_message']}",
                                          payload.get("traceback_tail", ""), stderr_tail))
    return record


def _lost(killed: str | None, running: bool, returncode: int | None, watchdog: float, options: Options,
          stderr_tail: str) -> dict:
    """The record of a case whose child printed no result: killed by us, or died."""
    if killed == "watchdog":
        return {"outcome": "timeout", "watchdog_s": watchdog, "stderr_tail": stderr_tail}
    if killed == "setup":
        return {"outcome": "broken", "phase": "setup", "stderr_tail": stderr_tail,
                "error_text": f"setup (import, inputs, reference) took over {options.setup_limit_s:g} s"}
    if returncode is not None and returncode < 0:
        try:
            how = f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            how = f"killed by signal {-returncode}"
    else:
        how = f"exited with code {returncode} and no result"
    return {"outcome": "died" if running else "broken", "phase": "run" if running else "setup",
            "returncode": returncode, "error_text": f"process {how}\n{stderr_tail}", "stderr_tail": stderr_tail}


def run_variant(pair: Pair, variant: str, cases: list[Case], options: Options, on_start=None) -> dict[str, dict]:
    """One child per case; perf pairs time all their cases in one child per variant (both kernels
    must run correctly there anyway). After a death or a kill the rest restart in a fresh child."""
    group = len(cases) if pair.evidence_class == "perf" else 1
    records: dict[str, dict] = {}
    pending = list(cases)
    while pending:
        records.update(_spawn(pair, variant, pending[:group], options, on_start))
        pending = [case for case in pending if case.name not in records]
    return records


def judge_case(pair: Pair, case: Case, bad: dict, good: dict) -> dict:
    """Did the bad run show the class's failure in this case (perf: the bad/good time ratio)?"""
    params = {k: v for k, v in case.params.items() if k not in ("name", "cpu", "control")}
    record = {"name": case.name, "params": params, "control": case.control, "bad": bad, "good": good}
    cls = pair.evidence_class
    if cls == "perf":
        if bad["outcome"] == "ok" and good["outcome"] == "ok":
            record["ratio"] = bad["time_ms"] / good["time_ms"]
        return record
    if cls in ("crash", "compile"):
        shown = bad["outcome"] in ("error", "died") and re.search(pair.bad_error, bad.get("error_text", "")) is not None
    elif cls == "hang":
        shown = bad["outcome"] == "timeout"
    else:
        shown = bad["outcome"] == "mismatch"
    record["reproduced"] = shown
    return record


def judge_pair(pair: Pair, cases: list[dict]) -> tuple[str, str, dict]:
    """The verdict, its reason, and extra figures (perf: median ratio)."""
    extra: dict = {}
    failed_good = [c for c in cases if c["good"]["outcome"] != "ok"]
    if failed_good:
        case = failed_good[0]
        return "good-failed", f"the good kernel {describe_run(case['good'])} in case {case['name']}", extra
    counted = [c for c in cases if not c["control"]]
    if pair.evidence_class == "perf":
        failed_bad = [c for c in cases if c["bad"]["outcome"] != "ok"]
        if failed_bad:
            case = failed_bad[0]
            return ("good-failed", f"the bad kernel {describe_run(case['bad'])} in case {case['name']}; "
                                   "a perf pair needs both kernels correct", extra)
        ratios = [c["ratio"] for c in counted]
        extra.update(median_ratio=statistics.median(ratios), min_ratio=min(ratios), max_ratio=max(ratios),
                     threshold=pair.min_ratio)
        held = extra["median_ratio"] >= pair.min_ratio
        reason = f"median bad/good time ratio {extra['median_ratio']:.2f}x {'>=' if held else '<'} {pair.min_ratio:g}x"
        return ("reproduced" if held else "not-reproduced"), reason, extra
    missed = [c for c in counted if not c["reproduced"]]
    if missed:
        case = missed[0]
        return ("not-reproduced", f"in {len(missed)} of {len(counted)} cases the bad kernel did not show it; "
                                  f"in case {case['name']} it {describe_run(case['bad'])}", extra)
    return "reproduced", "shown in " + ("the one case" if len(counted) == 1 else f"all {len(counted)} cases"), extra


def run_pair(pair: Pair, options: Options, cases: list[Case] | None = None, on_run=None, on_start=None) -> dict:
    """Run good then bad for every case and judge the pair. ``on_run(variant, case, record)`` is
    called after each run, ``on_start(variant, case_name)`` when a kernel call begins (progress)."""
    cases = list(pair.cases if cases is None else cases)
    runs: dict[str, dict[str, dict]] = {}
    for variant in ("good", "bad"):
        started = (lambda name, variant=variant: on_start(variant, name)) if on_start else None
        runs[variant] = run_variant(pair, variant, cases, options, started)
        if on_run:
            for case in cases:
                on_run(variant, case, runs[variant][case.name])
    judged = [judge_case(pair, case, runs["bad"][case.name], runs["good"][case.name]) for case in cases]
    verdict, reason, extra = judge_pair(pair, judged)
    record = {
        "code": pair.code, "name": pair.name, "dsl": pair.dsl, "evidence_class": pair.evidence_class,
        "verdict": verdict, "reason": reason, "claim": pair.claim, **extra,
        "watchdog_s": options.watchdog(pair), "atol": pair.atol, "rtol": pair.rtol,
        "bad_error": pair.bad_error, "device": options.device, "interpret": options.interpret, "cases": judged,
    }
    record["outcome"] = pair_outcome(record)
    record["summary"] = pair_summary(record)
    return record


def skipped_record(pair: Pair, reason: str, options: Options) -> dict:
    record = {"code": pair.code, "name": pair.name, "dsl": pair.dsl, "evidence_class": pair.evidence_class,
              "verdict": "skipped", "reason": reason, "claim": pair.claim, "device": options.device,
              "interpret": options.interpret, "cases": []}
    record["outcome"] = f"skipped: {reason}"
    record["summary"] = f"Not run: {reason}."
    return record
