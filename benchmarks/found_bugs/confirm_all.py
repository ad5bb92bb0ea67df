"""Run ``kernelint confirm`` on every found bug of this folder (issue 26): the harness is generated
from the source, not hand-written. Each bug's file, line and rule come from its hand-written
script's ``BUG``; ``SETTINGS`` lists the ``--set`` values a bug needs where the source leaves an
entry parameter open (each says why). Writes one JSON with, per bug, what ``confirm`` printed,
its exit code and its record (``verdict.json``) when it ran.

    python benchmarks/found_bugs/confirm_all.py --corpus DIR --out results.json [--dry-run] [--only NAME ...]

Without ``--dry-run`` this imports and runs the projects' kernels (a GPU machine); with it, only
generates the harnesses (any machine).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from run_all import HERE, bug_of, checkout_commit

#: ``--set`` values the source does not give, per script (why in the comment).
SETTINGS = {
    # `eps` is passed straight to the kernel: its type is not read from the source.
    "mamba__rms_norm_int32_rows.py": ["eps=1e-6"],
    "flash_attn__rms_norm_int32_rows.py": ["eps=1e-6"],
    # A_log is only passed on to the kernel; the test that calls the entry with torch.randn(H) is
    # not found while the program model's import index misses it (see the issue 26 report).
    "fla__gdn_gate_grid_axis.py": ["A_log=shape:(H,)"],
    # v is read only as v.shape[-1]; h0 is only passed on (the kernel's heuristics accept None).
    "fla__chunk_h_reduction_autotuned_in_place.py": ["v=shape:(B,T,H,V)", "h0=None"],
}
#: Extra confirm options per script.
OPTIONS = {
    # 72 autotune configs: cut to 3, as the hand-written harness does, so compiling does not dominate.
    "fla__chunk_h_reduction_autotuned_in_place.py": ["--max-configs", "3"],
}


def listed_commit(corpus: Path, repo: str) -> str | None:
    """The commit a corpus folder's ``COMMITS`` file lists for ``owner/name`` (``owner+name SHA`` lines),
    for checkouts kept without ``.git``."""
    listing = corpus / "COMMITS"
    if not listing.is_file():
        return None
    for line in listing.read_text(encoding="utf-8").splitlines():
        key, _, sha = line.partition(" ")
        if key == repo.replace("/", "+"):
            return sha.strip()
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--timeout", type=int, default=300, help="watchdog per kernel run (s)")
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    scripts = sorted(HERE.glob("*__*.py"))
    if args.only:
        scripts = [s for s in scripts if any(o in s.name for o in args.only)]
    work = args.out.with_suffix("")
    results = []
    for script in scripts:
        bug = bug_of(script)
        repo = args.corpus / bug.get("repo_dir", bug["repo"].split("/")[-1])
        entry = {"script": script.name, "file": bug["file"], "line": bug["line"], "rule": bug["rule"],
                 "settings": SETTINGS.get(script.name, [])}
        commit = (checkout_commit(repo) or listed_commit(args.corpus, bug["repo"])) if repo.is_dir() else None
        if commit is None or not commit.startswith(bug["commit"]):
            entry.update(outcome="not-run", why=f"no checkout of {bug['repo']} at {bug['commit']} under {args.corpus}")
            results.append(entry)
            continue
        command = [sys.executable, "-m", "kernelint", "confirm", f"{repo / bug['file']}:{bug['line']}:{bug['rule']}",
                   "--out", str(work), "--timeout", str(args.timeout)]
        command += ["--dry-run"] if args.dry_run else []
        for setting in entry["settings"]:
            command += ["--set", setting]
        command += OPTIONS.get(script.name, [])
        began = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        entry.update(exit_code=done.returncode, printed=done.stdout.strip().splitlines(),
                     stderr=done.stderr.strip()[-2000:], wall_s=round(time.perf_counter() - began, 1))
        record = work / f"{bug['rule']}-{Path(bug['file']).stem}-{bug['line']}" / "runs" / "verdict.json"
        if not args.dry_run and record.is_file():
            entry["record"] = json.loads(record.read_text())
        results.append(entry)
        print(f"{script.name}: exit {done.returncode}: {' | '.join(entry['printed'][-2:]) or entry['stderr'][-200:]}",
              flush=True)
    args.out.write_text(json.dumps({"dry_run": args.dry_run, "results": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
