"""Run every found-bug confirmation twice, each run in its own process with a timeout: on the
project's kernel as it is, and on a temporary copy with only ``BUG["fix"]`` applied (the control,
issue 24). A confirmation counts when the defect shows as is and not after the fix.

    python benchmarks/found_bugs/run_all.py --corpus DIR --out results.json [--only NAME ...] [--jobs N]

``DIR/<name>`` must hold a checkout of each script's repository (``REPO_DIR`` in the script, the
repository's name by default) at the commit its ``BUG`` names: the checkout's ``git rev-parse
HEAD``, or for a copy without ``.git`` the commit written in its ``COMMIT`` file, must start with
it, else the script is not run. The results file records the GPU, driver, torch, Triton and CuTe
DSL versions and each checkout's commit.
"""
from __future__ import annotations

import argparse
import ast
import json
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
VARIANTS = ("as-is", "fixed")


def bug_of(script: Path) -> dict:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "BUG" for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"{script.name}: no BUG")


def checkout_commit(repo: Path) -> str | None:
    """The commit of a checkout: ``git rev-parse HEAD``, or the ``COMMIT`` file of a copy."""
    if (repo / ".git").exists():
        done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True)
        return done.stdout.strip() or None
    marker = repo / "COMMIT"
    return marker.read_text(encoding="utf-8").strip() if marker.is_file() else None


def environment() -> dict:
    """GPU, driver and library versions of the machine the confirmations ran on."""
    env = {"python": platform.python_version(), "platform": platform.platform()}
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip().splitlines()
        if smi:
            env["gpu"], env["driver"] = (part.strip() for part in smi[0].split(",", 1))
    except (OSError, subprocess.SubprocessError):
        pass
    probe = ("import importlib.metadata as m, json\n"
             "def v(d):\n    try: return m.version(d)\n    except m.PackageNotFoundError: return None\n"
             "print(json.dumps({'torch': v('torch'), 'triton': v('triton'), "
             "'cutlass_dsl': v('nvidia-cutlass-dsl'), 'cuda_tile': v('cuda-tile')}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    if done.returncode == 0:
        env.update(json.loads(done.stdout))
    return env


def run_variant(script: Path, repo: Path, variant: str, timeout: int) -> dict:
    bug = bug_of(script)
    command = [sys.executable, str(script), "--repo", str(repo)] + (["--fixed"] if variant == "fixed" else [])
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        result = json.loads(lines[-1]) if lines else dict(bug, outcome="error", error="no result",
                                                          stderr=done.stderr[-3000:])
        result["exit_code"] = done.returncode
        if done.returncode != 0 and "stderr" not in result:
            result["stderr"] = done.stderr[-3000:]
    except subprocess.TimeoutExpired:
        result = dict(bug, outcome="timeout", error=f"no result within {timeout} s")
    result["variant"] = variant
    result["wall_s"] = round(time.perf_counter() - start, 1)
    return {key: value for key, value in result.items() if key not in bug or key in ("variant",)}


def verdict(as_is: dict, fixed: dict | None) -> str:
    """cause-shown: the defect as is, gone after the fix; otherwise what the pair of runs says."""
    if fixed is None:
        return "confirmed, no fixed control" if as_is.get("outcome") == "confirmed" else as_is.get("outcome", "error")
    if as_is.get("outcome") == "confirmed" and fixed.get("outcome") == "not-reproduced":
        return "cause-shown"
    if as_is.get("outcome") == "confirmed":
        return f"confirmed, but the fixed copy gave {fixed.get('outcome')}"
    return as_is.get("outcome", "error")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--timeout", type=int, default=180)
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time (each in its own process)")
    parser.add_argument("--only", nargs="*", help="run only scripts whose names contain one of these, in this order")
    args = parser.parse_args()
    scripts = sorted(HERE.glob("*__*.py"))
    if args.only:
        scripts = [s for o in args.only for s in scripts if o in s.name]
    began = time.perf_counter()
    entries, runs = [], []
    for script in scripts:
        bug = bug_of(script)
        repo = args.corpus / bug.get("repo_dir", bug["repo"].split("/")[-1])
        commit = checkout_commit(repo) if repo.is_dir() else None
        entry = dict(bug, script=script.name, checkout_commit=commit)
        entries.append(entry)
        if commit is None or not commit.startswith(bug["commit"]):
            entry["outcome"] = "not-run"
            entry["error"] = (f"no checkout at {repo}" if not repo.is_dir() else
                              f"checkout at {commit}, the finding names {bug['commit']}")
            continue
        for variant in VARIANTS if bug.get("fix") else VARIANTS[:1]:
            runs.append((entry, script, repo, variant))
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [(entry, variant, pool.submit(run_variant, script, repo, variant, args.timeout))
                   for entry, script, repo, variant in runs]
        for entry, variant, future in futures:
            entry[variant] = future.result()
            print(f"{entry['script']} {variant}: {entry[variant].get('outcome')} ({entry[variant]['wall_s']} s)",
                  flush=True)
    for entry in entries:
        if "as-is" in entry:
            entry["outcome"] = verdict(entry["as-is"], entry.get("fixed"))
    report = {"environment": environment(), "wall_s": round(time.perf_counter() - began, 1), "results": entries}
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for entry in entries:
        print(f"{entry['script']}: {entry['outcome']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
