"""Run ``kernelint confirm`` on every found bug of this folder (issue 26): the harness is generated
from the source, not hand-written. Each bug's file, line and rule come from its hand-written
script's ``BUG``; ``SETTINGS`` lists the ``--set`` values a bug needs where the source leaves an
entry parameter open (each says why). Writes one JSON with, per bug, what ``confirm`` printed,
its exit code and its record (``verdict.json``) when it ran.

    python benchmarks/found_bugs/confirm_all.py --corpus DIR --out results.json [--dry-run] [--extra] [--only NAME ...] [--jobs N]

Without ``--dry-run`` this imports and runs the projects' kernels (a GPU machine); with it, only
generates the harnesses (any machine). The H200 runs of 2026-12-01 (``results/confirm-h200-*``)
carried a ``git archive`` snapshot of kernelint with its commit in a ``COMMIT`` file and the copies
``pack_checkouts.py --extra`` makes, and ran, in the snapshot:

    python -m pip install --no-deps --no-build-isolation .   # the machine has no index to build from
    cd benchmarks/found_bugs && python confirm_all.py --corpus PACK --out $OUT/confirm.json --extra --jobs 6 --timeout 150
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from run_all import HERE, bug_of, checkout_commit

#: ``--set`` values the source does not give, per script (why in the comment).
SETTINGS: dict[str, list[str]] = {
    # None needed now: fla chunk_h's `v` (read only as v.shape[-1]) needed "v=shape:(B,T,H,V)" until
    # confirm read `B, T, H, K, V = *k.shape, v.shape[-1]` as v having k's leading dimensions.
}
#: Findings with no hand-written harness (corpus-relative PATH:LINE:CODE, --set values), taken from
#: ``kernelint check`` over mamba, Liger-Kernel, TileGym, flash-attention and flash-linear-attention
#: at the commits of ``COMMITS`` (issue 26): the ones whose harness ``confirm --dry-run`` generates and
#: whose inputs the entry accepted at reduced sizes under TRITON_INTERPRET=1 (where the interpreter
#: can run it). Run with ``--extra``; all 12 confirmed on the H200 (results/confirm-h200-2026-12-01-run2.json).
EXTRA = [
    ("mamba/mamba_ssm/ops/triton/ssd_chunk_scan.py:1283:KL126", []),  # found-bugs #15
    ("mamba/mamba_ssm/ops/triton/ssd_combined.py:307:KL126", []),
    ("mamba/mamba_ssm/ops/triton/layernorm_gated.py:68:KL103", []),  # found-bugs #28
    ("mamba/mamba_ssm/ops/triton/ssd_state_passing.py:52:KL103", []),
    ("mamba/mamba_ssm/ops/triton/ssd_chunk_scan.py:1224:KL103", []),
    ("TileGym/skills/tilegym-converting-cutile-to-triton/examples/02_softmax/triton_kernel.py:107:KL103", []),
    ("TileGym/skills/tilegym-converting-cutile-to-triton/examples/03_layernorm/triton_kernel.py:55:KL103", []),
    ("flash-linear-attention/fla/ops/utils/cumsum.py:264:KL126", []),
    ("flash-linear-attention/fla/ops/comba/utils.py:82:KL126", []),
    ("flash-linear-attention/fla/ops/kda/gate.py:493:KL126", []),
    ("flash-linear-attention/fla/ops/rwkv6/chunk.py:105:KL126", []),
    ("flash-linear-attention/fla/ops/utils/pooling.py:129:KL126", []),
    # Not listed: flash-attention flash_attn/flash_attn_triton.py:851 (KL126): its harness generates,
    # but the kernel calls tl.dot(..., trans_b=True), which Triton removed in 2.1: neither run can
    # compile it, so no run can show the launch limit. fla gated_oja_rule/chunk_kkt.py:448 (KL126):
    # `beta` defaults to None in the entry but the kernel loads it unconditionally; the harness keeps
    # the default, so neither run can launch (seen under the interpreter: 'NoneType' has no 'dtype').
]
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


def kernelint_commit() -> str | None:
    """The kernelint commit that ran: the ``COMMIT`` file of a snapshot made with ``git archive`` (a
    copy carried to a GPU machine has no ``.git`` of its own), else ``git rev-parse HEAD``."""
    root = HERE.parents[1]
    marker = root / "COMMIT"
    if marker.is_file():
        return marker.read_text(encoding="utf-8").strip()
    done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip() or None


def run_confirm(args, work: Path, entry: dict, where: Path, script: str | None) -> dict:
    command = [sys.executable, "-m", "kernelint", "confirm", str(where), "--out", str(work),
               "--timeout", str(args.timeout)]
    command += ["--dry-run"] if args.dry_run else []
    for setting in entry["settings"]:
        command += ["--set", setting]
    command += OPTIONS.get(script, []) if script else []
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    entry.update(exit_code=done.returncode, printed=done.stdout.strip().splitlines(),
                 stderr=done.stderr.strip()[-2000:], wall_s=round(time.perf_counter() - began, 1))
    harness = next((line.split(": ", 1)[1] for line in entry["printed"] if line.startswith("harness: ")), None)
    record = Path(harness).parent / "runs" / "verdict.json" if harness else None
    if not args.dry_run and record is not None and record.is_file():
        entry["record"] = json.loads(record.read_text())
    print(f"{script or where}: exit {done.returncode}: {' | '.join(entry['printed'][-2:]) or entry['stderr'][-200:]}",
          flush=True)
    return entry


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--timeout", type=int, default=300, help="watchdog per kernel run (s)")
    parser.add_argument("--only", nargs="*", help="only scripts (and, with --extra, findings) whose names contain one of these")
    parser.add_argument("--extra", action="store_true", help="also the findings of EXTRA (no hand-written harness)")
    parser.add_argument("--no-scripts", action="store_true", help="only the EXTRA findings, not the found bugs' scripts")
    parser.add_argument("--jobs", type=int, default=1,
                        help="confirmations run side by side (each is its own processes; an int32 run plans "
                             "about 12-25 GiB of device memory and checks what is free before it allocates)")
    args = parser.parse_args()
    scripts = [] if args.no_scripts else sorted(HERE.glob("*__*.py"))
    if args.only:
        scripts = [s for s in scripts if any(o in s.name for o in args.only)]
    work = args.out.with_suffix("")
    results: list[dict] = []
    tasks = []
    if args.extra:
        for where, settings in EXTRA:
            if args.only and not any(o in where for o in args.only):
                continue
            entry = {"script": None, "where": where, "settings": settings}
            results.append(entry)
            tasks.append((entry, args.corpus / where, None))
    for script in scripts:
        bug = bug_of(script)
        repo = args.corpus / bug.get("repo_dir", bug["repo"].split("/")[-1])
        entry = {"script": script.name, "file": bug["file"], "line": bug["line"], "rule": bug["rule"],
                 "settings": SETTINGS.get(script.name, [])}
        results.append(entry)
        commit = (checkout_commit(repo) or listed_commit(args.corpus, bug["repo"])) if repo.is_dir() else None
        if commit is None or not commit.startswith(bug["commit"]):
            entry.update(outcome="not-run", why=f"no checkout of {bug['repo']} at {bug['commit']} under {args.corpus}")
            continue
        tasks.append((entry, Path(f"{repo / bug['file']}:{bug['line']}:{bug['rule']}"), script.name))
    began = time.perf_counter()
    source = kernelint_commit()

    def write() -> None:
        # after each confirmation: a command stopped at its time limit keeps what finished
        args.out.write_text(json.dumps({"dry_run": args.dry_run, "jobs": args.jobs, "kernelint_commit": source,
                                        "results": results,
                                        "wall_s": round(time.perf_counter() - began, 1)}, indent=2) + "\n")

    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        # each worker fills a copy; the entry is updated here, so write() never reads one being filled
        running = {pool.submit(run_confirm, args, work, dict(entry), where, script): entry
                   for entry, where, script in tasks}
        for done in as_completed(running):
            running[done].update(done.result())
            write()
    write()
    return 0

if __name__ == "__main__":
    sys.exit(main())
