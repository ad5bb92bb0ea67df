"""Measured evidence records (``reference_kernels/evidence/<CODE>.json``), written by
``kernelint prove --evidence-dir`` on a GPU and committed. A rule's doc shows its record, and the
policy below ties the rule's severity and default to it."""
from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from kernelint.findings import Severity
from kernelint.prove import roofline

if TYPE_CHECKING:
    from kernelint.rules import Rule

#: rule-catalog.md: a default-on perf ``warning`` needs at least this median bad/good time ratio.
WARNING_MIN_RATIO = 1.2
#: Evidence classes (rule-catalog.md), defined here once: what a rule's reference pair must show.
#: ``none`` is for tool rules, which report a property of the run rather than of kernel code.
FAILURE_CLASSES = ("crash", "compile", "hang", "numerics")
MEASURED_CLASSES = (*FAILURE_CLASSES, "perf")
EVIDENCE_CLASSES = (*MEASURED_CLASSES, "none")


#: Code hundreds -> the rule's home DSL: the folder its checker and its first pair live in
#: (``reference_kernels/<dsl>/<CODE>_<name>/``).
DSL_OF_HUNDRED = {"1": "triton", "2": "triton", "3": "cute", "4": "cutile"}
_RECORD_NAME = re.compile(r"^(KL\d{3})(?:-([a-z]+))?$")


def home_dsl(code: str) -> str | None:
    return DSL_OF_HUNDRED.get(code[2:3])


def record_name(code: str, dsl: str | None = None) -> str:
    """The name of a pair's record, ``evidence/<name>.json``: the code for the pair in the rule's
    home DSL, ``<CODE>-<dsl>`` for a further pair of the rule in another DSL (KL126's cuTile pair:
    ``KL126-cutile``)."""
    home = home_dsl(code)
    return code if dsl is None or home is None or dsl == home else f"{code}-{dsl}"


def _record_names() -> list[str]:
    try:
        folder = resources.files("kernelint.reference_kernels").joinpath("evidence")
        names = (entry.name[:-5] for entry in folder.iterdir() if entry.name.endswith(".json"))
        return sorted(name for name in names if _RECORD_NAME.match(name))
    except (FileNotFoundError, OSError, ModuleNotFoundError):
        return []


def evidence_codes() -> list[str]:
    """Codes whose pair in the rule's home DSL has a committed record (the record the policy and
    the rule's severity follow)."""
    return [name for name in _record_names() if "-" not in name]


def record_names() -> list[str]:
    """Every committed record: each code's home pair and every further pair (``KL126-cutile``)."""
    return _record_names()


def further_records(code: str) -> list[dict]:
    """The committed records of ``code``'s pairs in DSLs other than its home one, by DSL."""
    return [record for name in _record_names() if name.startswith(f"{code}-")
            if (record := load_record(name)) is not None]


@lru_cache(maxsize=None)
def load_record(code: str) -> dict | None:
    try:
        text = resources.files("kernelint.reference_kernels").joinpath("evidence", f"{code}.json").read_text("utf-8")
    except (FileNotFoundError, OSError, ModuleNotFoundError):
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def policy_problems(rule: type["Rule"], record: dict) -> list[str]:
    """How ``rule``'s severity and default contradict its record (empty when they agree).

    rule-catalog.md: ``error`` only for a reproduced crash/compile/hang/numerics claim; a
    default-on ``warning`` only for a perf median ratio of at least 1.2x; below that, or where the
    claim did not reproduce, ``info`` and off by default. A skipped pair measured nothing.
    """
    verdict = record.get("verdict")
    if verdict == "skipped":
        return []
    problems = []
    if record.get("evidence_class") != rule.evidence_class:
        problems.append(f"the record is of class {record.get('evidence_class')!r}, the rule of {rule.evidence_class!r}")
    severity, on = rule.severity, rule.default_enabled
    if rule.evidence_class == "perf":
        ratio = record.get("median_ratio") if verdict in ("reproduced", "not-reproduced") else None
        if severity is Severity.ERROR:
            problems.append("a perf rule is never an error")
        if ratio is None or ratio < WARNING_MIN_RATIO:
            measured = f"median ratio {ratio:.2f}x" if ratio is not None else f"verdict {verdict}"
            if severity is not Severity.INFO or on:
                problems.append(f"{measured} (< {WARNING_MIN_RATIO}x): the rule must be info and off by default, "
                                f"is {severity.value} and {'on' if on else 'off'}")
    elif rule.evidence_class in FAILURE_CLASSES and verdict != "reproduced":
        if severity is not Severity.INFO or on:
            problems.append(f"verdict {verdict}: the rule must be info and off by default, "
                            f"is {severity.value} and {'on' if on else 'off'}")
    return problems


def _table(record: dict) -> list[str]:
    cases = record.get("cases") or []
    if not cases:
        return []
    if record.get("evidence_class") == "perf":
        gpu = (record.get("environment") or {}).get("gpu")
        rows = ["| case | shape | bad ms | good ms | bad/good | bad throughput | good throughput | good, share of peak |",
                "| --- | --- | --- | --- | --- | --- | --- | --- |"]
        for case in cases:
            bad, good = case.get("bad", {}), case.get("good", {})
            share = roofline.fraction(good, gpu)
            rows.append(f"| {_label(case)} | {_params(case)} | {_ms(bad)} | {_ms(good)} | "
                        f"{_ratio(case)} | {_throughput(bad)} | {_throughput(good)} | "
                        f"{'n/a' if share is None else f'{share:.1%}'} |")
        return rows
    if record.get("evidence_class") == "numerics":
        rows = ["| case | shape | bad max abs | bad max rel | good max abs | good max rel |",
                "| --- | --- | --- | --- | --- | --- |"]
        for case in cases:
            bad, good = case.get("bad", {}), case.get("good", {})
            rows.append(f"| {_label(case)} | {_params(case)} | {_num(bad, 'max_abs')} | {_num(bad, 'max_rel')} | "
                        f"{_num(good, 'max_abs')} | {_num(good, 'max_rel')} |")
        return rows
    rows = ["| case | shape | bad | good |", "| --- | --- | --- | --- |"]
    for case in cases:
        rows.append(f"| {_label(case)} | {_params(case)} | {_outcome(case.get('bad', {}))} | "
                    f"{_outcome(case.get('good', {}))} |")
    return rows


def _outcome(run: dict) -> str:
    kind = run.get("error_type", "").rsplit(".", 1)[-1]
    return f"{run.get('outcome', '?')} ({kind})" if kind else run.get("outcome", "?")


def _label(case: dict) -> str:
    return case.get("name", "?") + (" (control)" if case.get("control") else "")


def _params(case: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in (case.get("params") or {}).items())


def _ms(run: dict) -> str:
    return f"{run['time_ms']:.3f}" if isinstance(run.get("time_ms"), (int, float)) else run.get("outcome", "?")


def _ratio(case: dict) -> str:
    return f"{case['ratio']:.2f}x" if isinstance(case.get("ratio"), (int, float)) else "n/a"


def _throughput(run: dict) -> str:
    return f"{run['throughput']:.1f} {run.get('throughput_unit', '')}" if "throughput" in run else "n/a"


def _num(run: dict, key: str) -> str:
    value = run.get(key)
    if isinstance(value, (int, float)):
        return f"{value:.2e}" if value else "0"
    return str(value) if value is not None else run.get("outcome", "?")


def machine(record: dict) -> str:
    env = record.get("environment") or {}
    if record.get("interpret"):
        parts = ["the CPU under TRITON_INTERPRET=1"]
    else:
        parts = [env.get("gpu") or "unknown GPU"]
        if env.get("compute_capability"):
            parts.append(f"compute capability {env['compute_capability']}")
        if env.get("driver"):
            parts.append(f"driver {env['driver']}")
    parts += [f"{key.replace('_', '-')} {env[key]}" for key in ("torch", "triton", "cutlass_dsl", "cuda_tile", "python")
              if env.get(key)]
    return ", ".join(parts)


def describe(record: dict) -> str:
    """Markdown for a record: verdict and outcome, the per-case figures, machine, versions, date, command."""
    verdict = record.get("verdict", "unknown")
    lines = [f"**Verdict:** {verdict}" + (f" ({record['reason']})" if record.get("reason") else "") + "."]
    if record.get("outcome"):
        lines += ["", f"**Measured:** {record['outcome']}."]
    if record.get("summary"):
        lines += ["", record["summary"]]
    table = _table(record)
    if table:
        lines += [""] + table
    if record.get("claim"):
        lines += ["", f"Seed claim: {record['claim']}"]
    lines += ["", f"Measured on {machine(record)}, {record.get('date', 'date unknown')}, "
                  f"by `{record.get('command', 'kernelint prove')}`."]
    others = record.get("other_releases") or []
    if others:
        lines += ["", "**Other releases** (the same pair where the behaviour differs; raw runs in "
                      "`reference_kernels/evidence/runs/`):", ""]
        lines += [f"- {o.get('release')} on {o.get('where')}"
                  + (f" ({o['verdict']})" if o.get("verdict") else "") + f": {o.get('outcome')}" for o in others]
    return "\n".join(lines)


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def one_line(rule: type["Rule"]) -> str | None:
    """The rule's measurement in one line, from its committed record (what the full text
    format and the language server's hover show); None for tool rules, which measure nothing."""
    if rule.evidence_class == "none":
        return None
    record = load_record(rule.code)
    if record is None:
        return "not measured yet (no record of its reference pair)"
    verdict = str(record.get("verdict", "unknown")).replace("-", " ")
    where = "the CPU (TRITON_INTERPRET=1)" if record.get("interpret") else \
        ((record.get("environment") or {}).get("gpu") or "an unknown GPU")
    outcome = _ANSI.sub("", str(record.get("outcome") or record.get("reason") or "")).strip()
    outcome = " ".join(outcome.split())
    return f"{verdict} on {where}" + (f": {outcome}" if outcome else "")
