"""``kernelint prove``: run the selected pairs, print progress, write the record.

The parent never imports torch or a DSL: the environment comes from a probe child, and every
kernel runs in a child of its own (``runner.py``). Files are rewritten after every pair, so a run
cut short still leaves the pairs it finished.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import kernelint
from kernelint.evidence import record_name
from kernelint.prove.child import RESULT
from kernelint.prove.manifest import (INTERPRET_CLASSES, ManifestError, Pair, default_root, file_problems,
                                      folder_name_parts, load_pair, pair_dirs)
from kernelint.prove.runner import VERDICTS, Options, child_env, interrupt, run_pair, skipped_record
from kernelint.prove.text import describe_run

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
ENV_KEYS = ("gpu", "compute_capability", "driver", "cuda", "torch", "triton", "cutlass_dsl", "cuda_tile",
            "python", "platform")
#: Pairs run at once (GPU: not perf pairs, which run alone afterwards). ``KERNELINT_PROVE_JOBS``.
DEFAULT_JOBS = 4


class ProveUsageError(Exception):
    pass


def run(args) -> int:
    try:
        return _report(args) if getattr(args, "report", None) else _run(args)
    except ProveUsageError as error:
        print(f"kernelint prove: error: {error}", file=sys.stderr)
        return EXIT_USAGE


def _report(args) -> int:
    """``--report DIR``: the charts and page of measured records; nothing is run."""
    from kernelint.prove.report import ReportError, committed_records, read_records, unmeasured_rules, write_report

    if args.interpret or args.json or args.evidence_dir or args.timeout is not None:
        raise ProveUsageError("--report runs nothing; it cannot be combined with --interpret, --json, "
                              "--evidence-dir or --timeout")
    try:
        records = read_records(Path(args.records)) if args.records else committed_records()
        wanted = {code.upper() for code in args.codes} | {code.lower() for code in args.codes}
        if args.codes:
            records = [r for r in records if r["code"] in wanted or r.get("name") in wanted]
        # The committed records' page shows every rule with a pair: the unmeasured ones say so.
        unmeasured = [] if args.records else unmeasured_rules(records, wanted or None)
        if not records and not unmeasured:
            raise ProveUsageError(f"no record for {', '.join(args.codes)}")
        page = write_report(records, Path(args.report), args.chart_format, unmeasured)
    except (ReportError, OSError) as error:
        raise ProveUsageError(str(error)) from None
    extra = f", {len(unmeasured)} rule(s) not measured yet" if unmeasured else ""
    print(f"kernelint prove: wrote {page} ({len(records)} record(s){extra})", file=sys.stderr)
    return EXIT_OK


def _run(args) -> int:
    started = time.monotonic()
    if args.timeout is not None and not args.timeout > 0:
        raise ProveUsageError("--timeout must be a positive number of seconds")
    root = default_root()
    directories = _select(root, args.codes)
    loaded = [_load(directory) for directory in directories]
    options = Options(device="cpu" if args.interpret else "cuda", interpret=args.interpret, timeout=args.timeout)
    requires = sorted({m for item in loaded if isinstance(item, Pair) for m in item.requires})
    environment = probe(requires, args.interpret)
    if not args.interpret and not environment.get("cuda_available"):
        why = environment.get("torch_error") or "torch.cuda.is_available() is False"
        raise ProveUsageError(f"no CUDA GPU to run on ({why}). Use --interpret to run the Triton pairs "
                              "marked `interpret = true` on the CPU under TRITON_INTERPRET=1.")
    run_info = {
        "tool": "kernelint prove", "kernelint": kernelint.__version__,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": command_line(args), "pairs_root": str(root), "interpret": args.interpret,
        "environment": {key: environment.get(key) for key in ENV_KEYS},
    }
    writer = _Writer(args, run_info)
    total = len(loaded)
    progress = _Progress(total)
    print(f"kernelint prove: {total} pair(s) from {root} on {_machine(run_info['environment'], args.interpret)}",
          file=sys.stderr)

    def prove_one(item) -> dict:
        record = _prove(item, options, environment, progress)
        writer.add(record)
        progress.pair_done(record)
        return record

    jobs = _jobs()
    serial = [item for item in loaded if isinstance(item, Pair) and item.evidence_class == "perf"]
    parallel = [item for item in loaded if not (isinstance(item, Pair) and item.evidence_class == "perf")]
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        list(pool.map(prove_one, parallel))
        for item in serial:  # timed alone: nothing else on the GPU
            prove_one(item)
    except KeyboardInterrupt:
        interrupt()
        print(f"kernelint prove: interrupted; {len(writer.records)} finished pair(s) are written", file=sys.stderr)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        progress.close()
    writer.finish(time.monotonic() - started)
    counts = writer.counts()
    print("kernelint prove: " + ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])
          + f" in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return EXIT_OK if counts["not-reproduced"] + counts["good-failed"] == 0 else EXIT_FAILED


def _select(root: Path, codes: list[str]) -> list[Path]:
    directories = pair_dirs(root)
    if not directories:
        raise ProveUsageError(f"no reference pairs (*/*/pair.toml) under {root}")
    if not codes:
        return directories
    chosen, unknown = [], []
    for key in codes:  # a code or name selects every pair of the rule; KL126-cutile only that one
        match = [d for d in directories
                 if key.upper() == folder_name_parts(d)[0] or key.lower() == folder_name_parts(d)[1]
                 or key == _record_of(d)]
        if not match:
            unknown.append(key)
        chosen += [d for d in match if d not in chosen]
    if unknown:
        from kernelint.suggest import did_you_mean

        keys = [part for d in directories for part in (*folder_name_parts(d)[:2], _record_of(d))]
        hints = "".join(did_you_mean(key, keys) for key in unknown[:1])
        raise ProveUsageError(f"no reference pair for {', '.join(unknown)} under {root}{hints}")
    return chosen


def _record_of(directory: Path) -> str:
    """The record name of the pair in ``directory`` (``<dsl>/<CODE>_<name>``), from its folders."""
    return record_name(folder_name_parts(directory)[0], directory.parent.name)


def _load(directory: Path) -> Pair | dict:
    """The pair, or (when its folder is unusable) a ``good-failed`` record saying why."""
    try:
        pair = load_pair(directory)
        problems = file_problems(pair)
        if problems:
            raise ManifestError(f"{directory}:\n  - " + "\n  - ".join(problems))
        return pair
    except ManifestError as error:
        code, name = folder_name_parts(directory)
        return {"code": code, "name": name, "dsl": directory.parent.name, "evidence_class": None,
                "verdict": "good-failed", "reason": f"the pair is broken: {error}", "cases": [],
                "outcome": "invalid pair folder", "summary": f"Not run: the pair is broken: {error}."}


def _skip_reason(pair: Pair, options: Options, environment: dict) -> str | None:
    if options.interpret:
        if pair.dsl != "triton":
            return "--interpret runs only Triton pairs"
        if not pair.interpret:
            return "not marked `interpret = true`"
        if pair.evidence_class not in INTERPRET_CLASSES:
            return f"{pair.evidence_class} pairs need a GPU"
    missing = [m for m in pair.requires if not environment.get("importable", {}).get(m)]
    if missing:
        return f"needs {', '.join(missing)}, not importable here"
    gpus = environment.get("gpu_count") or 0
    if not options.interpret and pair.min_gpus > 1 and gpus < pair.min_gpus:
        return f"needs {pair.min_gpus} GPUs in one machine, this one has {gpus}"
    return None


def _prove(item, options: Options, environment: dict, progress: "_Progress") -> dict:
    if not isinstance(item, Pair):
        return item
    try:
        return _prove_pair(item, options, environment, progress)
    except Exception as error:  # one pair must not end a one-shot GPU batch
        reason = f"kernelint prove itself failed on this pair: {type(error).__name__}: {error}"
        return {**skipped_record(item, reason, options), "verdict": "good-failed", "outcome": reason}


def _prove_pair(item: Pair, options: Options, environment: dict, progress: "_Progress") -> dict:
    reason = _skip_reason(item, options, environment)
    if reason:
        return skipped_record(item, reason, options)
    cases = list(item.interpret_cases() if options.interpret else item.cases)
    start = time.monotonic()
    record = run_pair(item, options, cases,
                      on_run=lambda variant, case, run: progress.run_done(item, variant, case, run),
                      on_start=lambda variant, name: progress.case_started(item, variant, name))
    record["wall_s"] = round(time.monotonic() - start, 1)
    return record


def probe(modules: list[str], interpret: bool) -> dict:
    """The machine, from a child process (so this one never initialises CUDA). The child runs in
    an empty folder: ``python -m`` puts its working directory first on ``sys.path``, and an
    ``argparse.py`` or ``torch.py`` in the caller's folder would run in its place. A probe that
    gives no answer is an error (exit 2), never a run whose every pair is "skipped"."""
    command = [sys.executable, "-m", "kernelint.prove.child", "probe", *modules]
    with tempfile.TemporaryDirectory(prefix="kernelint-probe-") as empty:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=child_env(interpret),
                                  stdin=subprocess.DEVNULL, cwd=empty)
        except subprocess.TimeoutExpired:
            raise ProveUsageError("the environment probe (python -m kernelint.prove.child probe) "
                                  "did not answer in 300 s") from None
    for line in done.stdout.splitlines():
        if line.startswith(RESULT):
            return json.loads(line[len(RESULT):])
    tail = (done.stderr.strip() or done.stdout.strip())[-500:] or "no output"
    raise ProveUsageError(f"the environment probe (python -m kernelint.prove.child probe) failed "
                          f"with exit status {done.returncode}: {tail}")


def command_line(args) -> str:
    parts = ["kernelint", "prove", *args.codes]
    for flag, value in (("--json", args.json), ("--evidence-dir", args.evidence_dir), ("--timeout", args.timeout)):
        if value is not None:
            parts += [flag, str(value)]
    if args.interpret:
        parts.append("--interpret")
    return shlex.join(parts)


def _jobs() -> int:
    value = os.environ.get("KERNELINT_PROVE_JOBS")
    if value is None:
        return DEFAULT_JOBS
    if not value.isdigit() or int(value) < 1:
        raise ProveUsageError(f"KERNELINT_PROVE_JOBS must be a positive integer, got {value!r}")
    return int(value)


def _machine(env: dict, interpret: bool) -> str:
    if interpret:
        return f"the CPU (TRITON_INTERPRET=1; torch {env.get('torch')}, triton {env.get('triton')})"
    return (f"{env.get('gpu')} (sm {env.get('compute_capability')}, driver {env.get('driver')}; "
            f"torch {env.get('torch')}, triton {env.get('triton')}, cutlass-dsl {env.get('cutlass_dsl')})")


class _Progress:
    """Lines on stderr, one per kernel run and one per finished pair ``[n/m]``. On a terminal, also
    a bar on the last line (pairs done, the case running now, elapsed time), redrawn twice a
    second; anywhere else (CI, a log file) only the lines."""

    WIDTH = 24

    def __init__(self, total: int, stream=None, tty: bool | None = None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.total, self.done, self.lock = total, 0, threading.Lock()
        self.running: dict[str, str] = {}
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._ticker = None
        if self.tty:
            self._ticker = threading.Thread(target=self._tick, name="kernelint-prove-progress", daemon=True)
            self._ticker.start()

    def case_started(self, pair: Pair, variant: str, case_name: str) -> None:
        with self.lock:
            self.running[pair.record] = f"{_label(pair.code, pair.dsl)} {variant} {case_name}"
            self._draw()

    def run_done(self, pair: Pair, variant: str, case, run: dict) -> None:
        with self.lock:
            self._line(f"      {_label(pair.code, pair.dsl)} {variant:<4} {case.name}: {run['outcome']}"
                       + ("" if run["outcome"] == "ok" else f" ({describe_run(run)[:160]})"))

    def pair_done(self, record: dict) -> None:
        with self.lock:
            self.done += 1
            self.running.pop(record_name(record["code"], record.get("dsl")), None)
            took = f", {record['wall_s']:.0f} s" if "wall_s" in record else ""
            self._line(f"[{self.done}/{self.total}] {_label(record['code'], record.get('dsl'))} {record['name']}: "
                       f"{record['outcome']} "
                       f"({record['verdict']}{took})")

    def close(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self.tty:
            with self.lock:
                self.stream.write("\r\033[K")
                self.stream.flush()

    def bar(self) -> str:
        filled = self.WIDTH * self.done // max(self.total, 1)
        elapsed = int(time.monotonic() - self.started)
        now = "; ".join(self.running.values()) or "starting"
        text = (f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {self.done}/{self.total} pairs "
                f"| {elapsed // 60}:{elapsed % 60:02d} | {now}")
        return text[:max(shutil.get_terminal_size().columns - 1, 20)]

    def _line(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r\033[K")
        print(text, file=self.stream, flush=True)
        self._draw()

    def _draw(self) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + self.bar())
            self.stream.flush()

    def _tick(self) -> None:
        while not self._stop.wait(0.5):
            with self.lock:
                self._draw()


class _Writer:
    """Writes ``--json`` (the whole run) and ``--evidence-dir`` (one file per measured pair) as pairs
    finish. Skipped pairs get no evidence file: they measured nothing, and must not replace a record."""

    def __init__(self, args, run_info: dict):
        self.json_path = Path(args.json) if args.json else None
        self.evidence_dir = Path(args.evidence_dir) if args.evidence_dir else None
        self.run_info, self.records, self.lock = run_info, [], threading.Lock()
        try:
            if self.evidence_dir:
                self.evidence_dir.mkdir(parents=True, exist_ok=True)
            if self.json_path:
                self.json_path.parent.mkdir(parents=True, exist_ok=True)
                self._write_run(complete=False, wall_s=None)
        except OSError as error:
            raise ProveUsageError(f"cannot write the record: {error}") from None

    def add(self, record: dict) -> None:
        with self.lock:
            self.records.append(record)
            if self.evidence_dir and record["verdict"] != "skipped":
                evidence = {**record, **{k: self.run_info[k] for k in ("environment", "date", "command", "kernelint")}}
                _dump(self.evidence_dir / f"{record_name(record['code'], record.get('dsl'))}.json", evidence)
            if self.json_path:
                self._write_run(complete=False, wall_s=None)

    def finish(self, wall_s: float) -> None:
        if self.json_path:
            self._write_run(complete=True, wall_s=round(wall_s, 1))

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(VERDICTS, 0)
        for record in self.records:
            counts[record["verdict"]] += 1
        return counts

    def _write_run(self, complete: bool, wall_s) -> None:
        records = sorted(self.records, key=lambda r: record_name(r["code"], r.get("dsl")))
        _dump(self.json_path, {**self.run_info, "complete": complete, "wall_s": wall_s,
                               "counts": self.counts(), "pairs": records})


def _label(code: str, dsl: str | None) -> str:
    """How progress lines name a pair: its code, with the DSL for a further pair (``KL126 [cutile]``)."""
    return code if record_name(code, dsl) == code else f"{code} [{dsl}]"


def _dump(path: Path, data: dict) -> None:
    """Write JSON atomically (a reader never sees half a file)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
