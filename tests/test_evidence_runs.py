"""Every committed evidence record comes from a committed raw run (issue 24): a ``kernelint prove
--json`` file under ``reference_kernels/evidence/runs/`` with the record's date, command and
machine, whose pair carries the record's figures unchanged, and the log that run printed, whose
summary line for the rule gives the record's outcome and verdict. A record edited by hand, or
copied from a run that is not committed, fails here."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import PAIRS_ROOT

from kernelint.evidence import load_record, record_name, record_names
from kernelint.prove.manifest import tomllib

RUNS = PAIRS_ROOT / "evidence" / "runs"
#: Fields the evidence writer adds to a run's pair when it writes the record.
RECORD_ONLY = ("environment", "date", "command", "kernelint")
#: Fields a record may carry beyond its run, each checked against the runs it cites:
#: ``other_releases`` lists the pair's outcome on other Triton/DSL releases, each with its ``run``.
CITING = ("other_releases",)

#: Runs committed with their JSON but without the log prove printed (it was not kept at the time),
#: each with the records it still carries: the log check is waived for those only. None is left:
#: issue 24 re-ran every such pair with its log (KL206, KL311 and issue 22's KL131-KL133 in runs
#: 2026-12-01-h200-issue24d-*, issue 20's KL136/KL137 last in 2026-12-01-h200-issue24e-KL136-KL137);
#: the log-less runs stay in runs/ as history, used by no record. Add an entry only for a run whose
#: log is truly lost, and remove it by committing the log or re-running its pairs with their log.
RUNS_WITHOUT_LOG: dict[str, str] = {}


def prove_runs(folder: Path = RUNS) -> dict[Path, dict]:
    """The ``kernelint prove --json`` files in ``folder`` (other measurements there are skipped)."""
    runs = {}
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            continue  # JSON-lines side measurements (e.g. KL403's fp32 vs tf32 probe)
        if isinstance(data, dict) and data.get("tool") == "kernelint prove" and isinstance(data.get("pairs"), list):
            runs[path] = data
    return runs


def run_of(record: dict, runs: dict[Path, dict]) -> tuple[Path, dict] | None:
    """The committed run a record was written from: same date, command and machine, and a pair for
    the record's rule."""
    for path, run in runs.items():
        if (run.get("date"), run.get("command"), run.get("environment")) != \
                (record.get("date"), record.get("command"), record.get("environment")):
            continue
        for pair in run["pairs"]:  # the rule's pair in the record's DSL (KL126 has two)
            if (pair.get("code"), pair.get("dsl")) == (record.get("code"), record.get("dsl")):
                return path, pair
    return None


def differences(record: dict, pair: dict) -> list[str]:
    """Fields on which a record and its run's pair disagree (figures, cases, verdict, text)."""
    keys = (set(record) | set(pair)) - set(RECORD_ONLY) - set(CITING)
    return sorted(key for key in keys if record.get(key) != pair.get(key))


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _plain(text: str) -> str:
    return _ANSI.sub("", text)


def summary_line(log: str, code: str, dsl: str | None = None) -> str | None:
    """The ``[i/n] CODE name: outcome (verdict, N s)`` line prove printed for ``code``'s pair in
    ``dsl`` (a further pair's line reads ``CODE [dsl] name``; a run of that pair alone made before
    prove said so reads like a home pair's, so it is taken when it is the code's only line)."""
    lines = re.findall(rf"^\[\d+/\d+\] {code} .*$", log, re.M)
    if dsl is not None and record_name(code, dsl) != code:
        tagged = [line for line in lines if f"] {code} [{dsl}] " in line]
        lines = tagged or (lines if len(lines) == 1 else [])
    else:
        lines = [line for line in lines if not re.search(rf"\] {code} \[", line)]
    return lines[0] if lines else None


RECORDS = {name: load_record(name) for name in record_names()}
ALL_RUNS = prove_runs()


@pytest.mark.parametrize("code", sorted(RECORDS))
def test_record_matches_a_committed_run(code):
    record = RECORDS[code]
    found = run_of(record, ALL_RUNS)
    assert found is not None, (f"evidence/{code}.json ({record.get('date')}, `{record.get('command')}`): "
                               f"no committed run in {RUNS.relative_to(PAIRS_ROOT.parent)} has it")
    path, pair = found
    assert differences(record, pair) == [], f"evidence/{code}.json differs from {path.name}"


@pytest.mark.parametrize("code", sorted(RECORDS))
def test_record_matches_its_run_log(code):
    record = RECORDS[code]
    found = run_of(record, ALL_RUNS)
    if found is None:
        pytest.fail(f"evidence/{code}.json has no committed run")
    path, _ = found
    log = path.with_suffix(".log")
    if path.stem in RUNS_WITHOUT_LOG:
        assert not log.exists(), f"{log.name} is committed now: remove {path.stem} from RUNS_WITHOUT_LOG"
        return
    assert log.is_file(), f"{path.name} (the run of {code}) has no log {log.name}"
    line = summary_line(log.read_text(encoding="utf-8"), record["code"], record.get("dsl"))
    assert line is not None, f"{log.name} has no summary line for {code}"
    # The DSLs colour some error messages; a log kept through a pipe may have lost the codes.
    assert _plain(record["outcome"]) in _plain(line) and f"({record['verdict']}," in line, line


def other_release_problems(record: dict, root: Path = PAIRS_ROOT.parent) -> list[str]:
    """Entries of ``other_releases`` whose cited run is not committed, or, for a prove run, whose
    verdict and outcome are not that run's."""
    problems = []
    for entry in record.get("other_releases") or []:
        path = root / str(entry.get("run", ""))
        if not entry.get("run") or not path.is_file():
            problems.append(f"{entry.get('release')}: cited run {entry.get('run')!r} is not committed")
            continue
        try:
            run = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            continue  # a JSON-lines side measurement: committed is all that can be checked
        pairs = [p for p in run.get("pairs", []) if (p.get("code"), p.get("dsl")) == (record["code"], record.get("dsl"))] \
            if isinstance(run, dict) else []
        if isinstance(run, dict) and run.get("tool") == "kernelint prove":
            if not pairs:
                problems.append(f"{entry.get('release')}: {path.name} has no pair {record['code']}")
            elif (pairs[0].get("verdict"), pairs[0].get("outcome")) != (entry.get("verdict"), entry.get("outcome")):
                problems.append(f"{entry.get('release')}: verdict or outcome differs from {path.name}")
    return problems


@pytest.mark.parametrize("code", sorted(c for c, r in RECORDS.items() if r.get("other_releases")))
def test_other_releases_cite_committed_runs(code):
    assert other_release_problems(RECORDS[code]) == []


def test_every_exception_names_a_committed_run_that_a_record_uses():
    used = {run_of(record, ALL_RUNS)[0].stem for record in RECORDS.values() if run_of(record, ALL_RUNS)}
    assert set(RUNS_WITHOUT_LOG) <= used, sorted(set(RUNS_WITHOUT_LOG) - used)


# --- the matching itself, on copies ------------------------------------------------------------

def _copy_run(tmp_path: Path, code: str) -> tuple[dict, Path]:
    record = dict(RECORDS[code])
    path, _ = run_of(record, ALL_RUNS)
    (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    return record, tmp_path / path.name


def test_a_changed_figure_is_refused(tmp_path):
    record, _ = _copy_run(tmp_path, "KL202")
    runs = prove_runs(tmp_path)
    assert differences(record, run_of(record, runs)[1]) == []
    cases = json.loads(json.dumps(record["cases"]))
    cases[1]["ratio"] *= 2
    assert differences({**record, "cases": cases}, run_of(record, runs)[1]) == ["cases"]
    assert differences({**record, "median_ratio": 2.22}, run_of(record, runs)[1]) == ["median_ratio"]


def test_a_record_whose_run_is_missing_is_refused(tmp_path):
    record, copied = _copy_run(tmp_path, "KL115")
    assert run_of(record, prove_runs(tmp_path)) is not None
    assert run_of({**record, "date": "2026-12-01T06:05:05+00:00"}, prove_runs(tmp_path)) is None
    copied.unlink()
    assert run_of(record, prove_runs(tmp_path)) is None


def test_summary_line_is_read_per_rule():
    log = ("[1/2] KL115 autotune-inplace-without-restore: bad max abs error 4.40e+03 (reproduced, 22 s)\n"
           "[2/2] KL117 tile-index-as-offset: bad max abs error 5.29e+00 (reproduced, 21 s)\n")
    assert summary_line(log, "KL117").startswith("[2/2] KL117 ")
    assert summary_line(log, "KL116") is None


def test_summary_line_is_read_per_pair():
    """A run of both of a rule's pairs prints one line each; the record of each pair takes its own."""
    log = ("[1/2] KL126 grid-axis-over-65535: bad: `RuntimeError: invalid argument` (reproduced, 9 s)\n"
           "[2/2] KL126 [cutile] grid-axis-over-65535: bad: `ValueError: Grid[1] is too big` (reproduced, 24 s)\n")
    assert "RuntimeError" in summary_line(log, "KL126", "triton")
    assert "ValueError" in summary_line(log, "KL126", "cutile")
    assert "RuntimeError" in summary_line(log, "KL126")
    alone = "[1/1] KL126 grid-axis-over-65535: bad: `ValueError: Grid[1] is too big` (reproduced, 24 s)\n"
    assert "ValueError" in summary_line(alone, "KL126", "cutile")


@pytest.mark.parametrize("code", sorted(RECORDS))
def test_record_claim_is_its_pairs_claim(code):
    """The claim the docs show beside a measurement (README, explain, docs/evidence.md) is the
    claim that run tested: a pair whose claim text changes is re-run (KL101's was, in issue 24)."""
    record = RECORDS[code]
    [pair] = [p for p in PAIRS_ROOT.glob(f"{record['dsl']}/{record['code']}_*/pair.toml")]
    assert record.get("claim") == tomllib.loads(pair.read_text(encoding="utf-8")).get("claim")


def test_an_other_release_must_cite_a_committed_run(tmp_path):
    record, copied = _copy_run(tmp_path, "KL202")
    cited = {"release": "Triton 3.6.0", "verdict": record["verdict"], "outcome": record["outcome"],
             "run": copied.name}
    assert other_release_problems({**record, "other_releases": [cited]}, root=tmp_path) == []
    wrong = {**cited, "verdict": "reproduced"}
    assert "differs" in other_release_problems({**record, "other_releases": [wrong]}, root=tmp_path)[0]
    missing = {**cited, "run": "runs/nowhere.json"}
    assert "not committed" in other_release_problems({**record, "other_releases": [missing]}, root=tmp_path)[0]
