"""Words for a record: one phrase per run, a one-line outcome and a summary paragraph per pair.
Only figures that are in the record appear here."""
from __future__ import annotations

import re

_AT_LINE = re.compile(r"^at \d+:\d+:?$")


def number(value) -> str:
    if isinstance(value, str):  # "inf" / "nan", kept as text in JSON
        return value
    return f"{value:.2e}" if value else "0"


def error_line(run: dict) -> str:
    """``Type: the line of the message that says what went wrong`` (Triton puts it after the source)."""
    kind = run.get("error_type", "").rsplit(".", 1)[-1]
    lines = [line.strip() for line in run.get("error_message", "").splitlines() if line.strip()]
    if lines and _AT_LINE.match(lines[0]):
        lines = lines[-1:]
    message = lines[0] if lines else ""
    if len(message) > 200:
        message = message[:197] + "..."
    return f"{kind}: {message}" if message else kind


def _errors(run: dict) -> str:
    text = f"max abs error {number(run.get('max_abs'))}, max rel {number(run.get('max_rel'))}"
    if run.get("mismatched"):
        text += f", {run['mismatched']:,} of {run['numel']:,} elements out of tolerance"
    if run.get("note"):
        text += f"; {run['note']}"
    return text


def describe_run(run: dict) -> str:
    """A phrase that follows "the bad kernel" / "the good kernel"."""
    outcome = run["outcome"]
    if outcome == "ok":
        timing = f", {run['time_ms']:.3f} ms" if "time_ms" in run else ""
        return f"ran and matched the reference ({_errors(run)}{timing})"
    if outcome == "mismatch":
        return f"ran but did not match the reference ({_errors(run)})"
    if outcome == "timeout":
        return f"was still running when the {run['watchdog_s']:g} s watchdog killed it"
    if outcome == "died":
        return f"died: {run['error_text'].splitlines()[0]}"
    if outcome == "error":
        during = " while being timed" if run.get("phase") == "bench" else ""
        return f"failed{during} with `{error_line(run)}`"
    if "error_type" in run:
        return f"could not be set up ({run.get('phase')}): `{error_line(run)}`"
    return f"could not be set up: {run.get('error_text', '').splitlines()[0] if run.get('error_text') else 'no result'}"


def params(case: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in case["params"].items() if k not in ("cpu", "control"))


def _throughput(run: dict) -> str:
    if "throughput" not in run:
        return "n/a"
    share = f", {run['roofline_fraction']:.0%} of peak" if "roofline_fraction" in run else ""
    return f"{run['throughput']:.1f} {run['throughput_unit']}{share}"


def pair_outcome(record: dict) -> str:
    """One line for tables and progress: what was measured."""
    cls, cases = record["evidence_class"], record["cases"]
    if record["verdict"] == "good-failed":
        return record["reason"]
    counted = [c for c in cases if not c["control"]]
    if cls == "perf":
        spread = (f" ({record['min_ratio']:.2f}-{record['max_ratio']:.2f}x over {len(counted)} shapes)"
                  if len(counted) > 1 else "")
        return f"median bad/good time {record['median_ratio']:.2f}x{spread}"
    shown = sum(c["reproduced"] for c in counted)
    if cls == "numerics" and all("max_abs" in c["bad"] for c in counted):
        worst = max(counted, key=lambda c: _as_float(c["bad"].get("max_abs", 0)))
        return (f"bad max abs error {number(worst['bad'].get('max_abs'))} vs good "
                f"{number(worst['good'].get('max_abs'))} (atol {record['atol']:g}, rtol {record['rtol']:g}); "
                f"out of tolerance in {shown}/{len(counted)} cases")
    first = next((c for c in counted if c["reproduced"]), counted[0])
    bad = first["bad"]
    if bad["outcome"] == "error":
        what = f"`{error_line(bad)}`"
    elif bad["outcome"] == "timeout":
        what = f"still running at the {bad['watchdog_s']:g} s watchdog, killed"
    else:
        what = describe_run(bad)
    return f"bad: {what} ({shown}/{len(counted)} cases); good ran and matched"


def _as_float(value) -> float:
    return float(value) if not isinstance(value, str) else float("inf")


def pair_summary(record: dict) -> str:
    """The paragraph shown by ``kernelint explain``: every case with its figures (the verdict and
    its reason are fields of their own)."""
    sentences = []
    for case in record["cases"]:
        label = f"Case {case['name']} ({params(case)}){' [control]' if case['control'] else ''}"
        bad, good = case["bad"], case["good"]
        if record["evidence_class"] == "perf" and "ratio" in case:
            sentences.append(
                f"{label}: bad {bad['time_ms']:.3f} ms ({_throughput(bad)}), good {good['time_ms']:.3f} ms "
                f"({_throughput(good)}), bad/good {case['ratio']:.2f}x.")
        else:
            sentences.append(f"{label}: the bad kernel {describe_run(bad)}; the good kernel {describe_run(good)}.")
    if "median_ratio" in record:
        sentences.append(f"Median bad/good time ratio {record['median_ratio']:.2f}x "
                         f"(threshold {record['threshold']:g}x).")
    return " ".join(sentences)
