"""Run kernelint over real kernel repositories and summarise what it reports.

Fetches nothing: pass the directories of checkouts kept outside this repository, e.g.

    python benchmarks/corpus.py /work/corpus/*                       # summary, default rules
    python benchmarks/corpus.py /work/corpus/* --select ALL --sample-csv sample.csv
    python benchmarks/corpus.py /work/corpus/* --check               # the regression benchmark

For each directory it prints the commit (``git rev-parse HEAD``), how many Python files kernelint
checks, how many of them could hold kernels (name a DSL), their lines, and the findings per
rule. ``--sample-csv`` / ``--sample-md`` write rows for the precision table (repository, commit,
file, line, rule, message): every finding of a rule with at most ``--per-rule`` (40) of them,
else that many chosen by a hash of the finding, so the sample is the same on every run and
spread across repositories rather than the first files alphabetically.

``--check`` is the regression benchmark on real code, run before every rule change
(docs/adding-a-rule.md): ``benchmarks/corpus_judged.csv`` pins every site the default rule set
reports on the corpus repositories at their commits (repository, commit, file, line, rule) with
the verdict of a person who read it (``true``, ``latent``: a real defect that needs inputs beyond
common use, ``false``, ``useless``: true to the rule's wording but worth no change). The run
fails when a site judged true or latent is no longer reported (a lost true finding) or a site is
reported that the table does not hold (a new unjudged finding: read it, then add its row).
A grouped finding (one cause, several sites) is matched site by site, so grouping changes
neither. Repositories checked out at another commit than the table's are skipped with a note.
``--write-judged`` rewrites the table with today's sites, keeping every verdict it had and
marking new sites ``unjudged``; ``--write-precision`` writes the per-rule figures the table gives
into ``reference_kernels/corpus_precision.json`` (read by ``kernelint rules`` and the
default-on policy test).
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
JUDGED_FIELDS = ("repository", "commit", "file", "line", "rule", "verdict", "reason")
VERDICTS = ("true", "latent", "false", "useless", "unjudged")
#: A site judged so is a finding worth having: losing one is a regression.
GOOD_VERDICTS = ("true", "latent")
HERE = Path(__file__).resolve().parent
JUDGED = HERE / "corpus_judged.csv"
PRECISION = HERE.parent / "reference_kernels" / "corpus_precision.json"


def commit_of(directory: Path) -> str:
    """``git rev-parse HEAD``; for a checkout without its git folder, the line of a ``COMMITS``
    file beside it (``owner+name <sha>``, as /work/corpus keeps them) whose name is the folder's."""
    try:
        out = subprocess.run(["git", "-C", str(directory), "rev-parse", "HEAD"],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    listing = directory.parent / "COMMITS"
    if listing.is_file():
        for line in listing.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0].split("+")[-1] == directory.name:
                return parts[1]
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


def sites(directory: Path, finding: dict) -> list[tuple[str, int]]:
    """(file relative to the repository, line) of a finding's own site and its related ones."""
    own = [(os.path.relpath(finding["path"], directory), finding["line"])]
    return own + [(os.path.relpath(r["path"], directory), r["line"]) for r in finding.get("related", [])]


def read_judged(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["line"] = int(row["line"])
        if row["verdict"] not in VERDICTS:
            raise SystemExit(f"{path}: unknown verdict {row['verdict']!r} ({row['file']}:{row['line']})")
    return rows


def write_judged(path: Path, rows: list[dict]) -> None:
    rows = sorted(rows, key=lambda r: (r["rule"], r["repository"], r["file"], int(r["line"])))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=JUDGED_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: row[k] for k in JUDGED_FIELDS} for row in rows)


def compare(judged: list[dict], reported: set[tuple[str, str, int, str]],
            commits: dict[str, str]) -> tuple[list[dict], list[tuple], list[dict]]:
    """(judged true/latent sites no longer reported, reported sites the table lacks, judged
    false/useless sites still reported), over the repositories at the table's commits."""
    pinned = {(r["repository"], r["file"], r["line"], r["rule"]) for r in judged}
    in_scope = [r for r in judged if commits.get(r["repository"]) == r["commit"]]
    lost = [r for r in in_scope if r["verdict"] in GOOD_VERDICTS
            and (r["repository"], r["file"], r["line"], r["rule"]) not in reported]
    new = sorted(site for site in reported if site not in pinned)
    still_false = [r for r in in_scope if r["verdict"] in ("false", "useless")
                   and (r["repository"], r["file"], r["line"], r["rule"]) in reported]
    return lost, new, still_false


def precision_figures(judged: list[dict]) -> dict[str, dict]:
    """Per rule: sites judged, each verdict's count, (true + latent) / judged, repositories."""
    figures: dict[str, dict] = {}
    for row in judged:
        if row["verdict"] == "unjudged":
            continue
        entry = figures.setdefault(row["rule"], {"judged": 0, **{v: 0 for v in VERDICTS[:-1]}, "repositories": set()})
        entry["judged"] += 1
        entry[row["verdict"]] += 1
        entry["repositories"].add(row["repository"])
    for entry in figures.values():
        entry["precision"] = round(sum(entry[v] for v in GOOD_VERDICTS) / entry["judged"], 4)
        entry["repositories"] = sorted(entry["repositories"])
        entry["source"] = "benchmarks/corpus_judged.csv"
    return figures


def write_precision(path: Path, judged: list[dict], commits: dict[str, str], default_codes: list[str]) -> None:
    """Replace the figures of the default set's rules in ``path``; the entries of other rules
    (judged in earlier rounds, docs/precision.md) are kept."""
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"rules": {}}
    figures = precision_figures(judged)
    for code in default_codes:
        data["rules"][code] = figures.get(code, {"judged": 0, "precision": None, "repositories": [],
                                                 "source": "benchmarks/corpus_judged.csv: no finding"})
    data["corpus"] = dict(sorted(commits.items()))
    data["rules"] = dict(sorted(data["rules"].items()))
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def default_codes() -> list[str]:
    from kernelint.rules import all_rules

    return [rule.code for rule in all_rules() if rule.default_enabled and not rule.code.startswith("KL0")]  # tool rules report on the run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directories", nargs="+", type=Path, help="checkouts of kernel repositories")
    parser.add_argument("--select", help="rules to run, as for `kernelint check` (default: the default-on rules)")
    parser.add_argument("--jobs", "-j", type=int, help="kernelint --jobs")
    parser.add_argument("--per-rule", type=int, default=40, help="sampled findings per rule (default 40)")
    parser.add_argument("--sample-csv", type=Path, help="write the sampled findings as CSV here")
    parser.add_argument("--sample-md", type=Path, help="write the sampled findings as markdown table rows here")
    parser.add_argument("--json", type=Path, help="write every finding, with repository and commit, here")
    parser.add_argument("--check", action="store_true",
                        help="compare the default set's sites with the judged table; exit 1 on a lost true "
                             "finding or a new unjudged one")
    parser.add_argument("--judged", type=Path, default=JUDGED, help=f"the judged table (default {JUDGED.name})")
    parser.add_argument("--write-judged", action="store_true",
                        help="rewrite the judged table with today's sites (verdicts kept, new sites 'unjudged')")
    parser.add_argument("--write-precision", action="store_true",
                        help=f"write the table's per-rule figures into {PRECISION.relative_to(HERE.parent)}")
    args = parser.parse_args(argv)
    if (args.check or args.write_judged) and args.select:
        parser.error("--check and --write-judged pin the default rule set: leave out --select")

    extra = ["--select", args.select] if args.select else []
    rows: list[dict] = []
    summary = []
    totals: Counter = Counter()
    reported: set[tuple[str, str, int, str]] = set()
    commits: dict[str, str] = {}
    for directory in args.directories:
        directory = directory.resolve()
        if not directory.is_dir():
            parser.error(f"not a directory: {directory}")
        repo, commit = directory.name, commit_of(directory)
        commits[repo] = commit
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
            reported.update((repo, file, line, f["code"]) for file, line in sites(directory, f))

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
    if args.write_judged:
        old = {(r["repository"], r["file"], r["line"], r["rule"]): r
               for r in (read_judged(args.judged) if args.judged.exists() else [])}
        table = [old.get(site) or {"repository": site[0], "commit": commits[site[0]], "file": site[1],
                                   "line": site[2], "rule": site[3], "verdict": "unjudged", "reason": ""}
                 for site in sorted(reported)]
        write_judged(args.judged, table)
        print(f"\nwrote {len(table)} sites to {args.judged} "
              f"({sum(1 for r in table if r['verdict'] == 'unjudged')} unjudged)")
    if args.write_precision:
        write_precision(PRECISION, read_judged(args.judged), commits, default_codes())
    if args.check:
        return report_check(read_judged(args.judged), reported, commits)
    return 0


def report_check(judged: list[dict], reported: set, commits: dict[str, str]) -> int:
    for repo in sorted({r["repository"] for r in judged} & set(commits)):
        pinned = {r["commit"] for r in judged if r["repository"] == repo}
        if commits[repo] not in pinned:
            print(f"note: {repo} is not at the judged commit {', '.join(c[:12] for c in pinned)}: not compared")
    judged_at: dict[str, set[str]] = {}
    for row in judged:
        judged_at.setdefault(row["repository"], set()).add(row["commit"])
    # A repository at another commit is not compared; one the table has no row for is (its sites are new).
    reported = {site for site in reported if site[0] not in judged_at or commits.get(site[0]) in judged_at[site[0]]}
    lost, new, still_false = compare(judged, reported, commits)
    print(f"\nregression check: {len(reported)} sites reported, {len(judged)} judged")
    for row in lost:
        print(f"LOST {row['verdict']} finding: {row['repository']}/{row['file']}:{row['line']} {row['rule']} ({row['reason']})")
    for repo, file, line, rule in new:
        print(f"NEW unjudged finding: {repo}/{file}:{line} {rule}")
    for row in still_false:
        print(f"still reported, judged {row['verdict']}: {row['repository']}/{row['file']}:{row['line']} {row['rule']}")
    ok = not lost and not new
    print("OK: every judged true/latent site is reported and nothing unjudged is new" if ok else
          f"FAILED: {len(lost)} lost, {len(new)} new unjudged")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
