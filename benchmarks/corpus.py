"""Run kernelint over real kernel repositories and summarise what it reports.

Fetches nothing: pass the directories of checkouts kept outside this repository, e.g.

    python benchmarks/corpus.py /work/corpus/*                       # summary, default rules
    python benchmarks/corpus.py /work/corpus/* --select ALL --sample-csv sample.csv

For each directory it prints the commit (``git rev-parse HEAD``), how many Python files kernelint
checks, how many of them could hold kernels (name a DSL), their lines, and the findings per
rule. ``--sample-csv`` / ``--sample-md`` write rows for the precision table (repository, commit,
file, line, rule, message): every finding of a rule with at most ``--per-rule`` (40) of them,
else that many chosen by a hash of the finding, so the sample is the same on every run and
spread across repositories rather than the first files alphabetically.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

FIELDS = ("repository", "commit", "file", "line", "rule", "message")


def commit_of(directory: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(directory), "rev-parse", "HEAD"],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def file_stats(directory: Path) -> tuple[int, int, int]:
    """(Python files kernelint checks, files that name a kernel DSL, lines of those)."""
    from kernelint.config import load_settings
    from kernelint.discovery import discover
    from kernelint.engine import decode, might_hold_kernels

    files, _ = discover([str(directory)], load_settings(directory))
    kernel_files = lines = 0
    for path in files:
        try:
            source = decode(Path(path).read_bytes())
        except OSError:
            continue
        if might_hold_kernels(source):
            kernel_files += 1
            lines += source.count("\n") + 1
    return len(files), kernel_files, lines


def findings_of(directory: Path, extra: list[str], jobs: int | None) -> list[dict]:
    """kernelint's JSON findings for one directory, from a separate process (as users run it).
    ``--no-cache``: a run over a read-only checkout must not write into it or reuse old results."""
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "findings.json"
        command = [sys.executable, "-m", "kernelint", "check", str(directory), "--format", "json",
                   "--output", str(output), "--exit-zero", "--no-cache", *extra]
        if jobs:
            command += ["--jobs", str(jobs)]
        result = subprocess.run(command, capture_output=True, text=True, cwd=scratch, check=False)
        if result.returncode != 0:
            raise SystemExit(f"kernelint failed on {directory}:\n{result.stderr}")
        return json.loads(output.read_text(encoding="utf-8"))


def sample(rows: list[dict], per_rule: int) -> list[dict]:
    """At most ``per_rule`` rows of each rule, chosen by a stable hash of the row."""
    def rank(row: dict) -> str:
        key = "\0".join(str(row[f]) for f in FIELDS)
        return hashlib.sha256(key.encode()).hexdigest()

    chosen = []
    for rule in sorted({r["rule"] for r in rows}):
        of_rule = sorted((r for r in rows if r["rule"] == rule), key=rank)[:per_rule]
        chosen.extend(sorted(of_rule, key=lambda r: (r["repository"], r["file"], r["line"])))
    return chosen


def markdown_table(header: list[str], body: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in body]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directories", nargs="+", type=Path, help="checkouts of kernel repositories")
    parser.add_argument("--select", help="rules to run, as for `kernelint check` (default: the default-on rules)")
    parser.add_argument("--jobs", "-j", type=int, help="kernelint --jobs")
    parser.add_argument("--per-rule", type=int, default=40, help="sampled findings per rule (default 40)")
    parser.add_argument("--sample-csv", type=Path, help="write the sampled findings as CSV here")
    parser.add_argument("--sample-md", type=Path, help="write the sampled findings as markdown table rows here")
    parser.add_argument("--json", type=Path, help="write every finding, with repository and commit, here")
    args = parser.parse_args(argv)

    extra = ["--select", args.select] if args.select else []
    rows: list[dict] = []
    summary = []
    totals: Counter = Counter()
    for directory in args.directories:
        directory = directory.resolve()
        if not directory.is_dir():
            parser.error(f"not a directory: {directory}")
        repo, commit = directory.name, commit_of(directory)
        files, kernel_files, lines = file_stats(directory)
        findings = findings_of(directory, extra, args.jobs)
        per_rule = Counter(f["code"] for f in findings)
        totals.update(per_rule)
        summary.append([repo, commit[:12], files, kernel_files, lines, len(findings),
                        ", ".join(f"{code} {n}" for code, n in sorted(per_rule.items())) or "-"])
        for f in findings:
            rows.append({"repository": repo, "commit": commit,
                         "file": os.path.relpath(f["path"], directory), "line": f["line"],
                         "rule": f["code"], "message": f["message"]})

    print(markdown_table(["repository", "commit", "py files", "kernel files", "kernel lines",
                          "findings", "per rule"], summary))
    print()
    print(markdown_table(["rule", "findings"], [[code, n] for code, n in sorted(totals.items())]))

    chosen = sample(rows, args.per_rule)
    if args.sample_csv:
        with args.sample_csv.open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=FIELDS)
            writer.writeheader()
            writer.writerows(chosen)
    if args.sample_md:
        args.sample_md.write_text(
            markdown_table(list(FIELDS), [[r[f] for f in FIELDS] for r in chosen]) + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
