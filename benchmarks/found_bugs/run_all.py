"""Run every found-bug confirmation in its own process with a timeout and collect the results.

    python benchmarks/found_bugs/run_all.py --corpus DIR --out results.json [--only NAME ...]

``DIR/<name>`` must hold a checkout of each script's repository (``REPO_DIR`` in the script, the
repository's name by default) at the commit its ``BUG`` names.
"""
from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def bug_of(script: Path) -> dict:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "BUG" for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"{script.name}: no BUG")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--timeout", type=int, default=180)
    parser.add_argument("--only", nargs="*", help="run only scripts whose names contain one of these, in this order")
    parser.add_argument("--budget", type=float, default=None, help="start no script after this many seconds")
    args = parser.parse_args()
    results = []
    scripts = sorted(HERE.glob("*__*.py"))
    if args.only:
        scripts = [s for o in args.only for s in scripts if o in s.name]
    began = time.perf_counter()
    for script in scripts:
        if args.budget is not None and time.perf_counter() - began > args.budget:
            results.append(dict(bug_of(script), outcome="not-run", error="run budget spent", script=script.name))
            continue
        bug = bug_of(script)
        repo = args.corpus / bug.get("repo_dir", bug["repo"].split("/")[-1])
        start = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, str(script), "--repo", str(repo)], capture_output=True,
                                  text=True, timeout=args.timeout)
            lines = [l for l in done.stdout.splitlines() if l.startswith("{")]
            result = json.loads(lines[-1]) if lines else dict(bug, outcome="error", error="no result", stderr=done.stderr[-3000:])
            result["exit_code"] = done.returncode
            if done.returncode != 0 and "stderr" not in result:
                result["stderr"] = done.stderr[-3000:]
        except subprocess.TimeoutExpired:
            result = dict(bug, outcome="timeout", error=f"no result within {args.timeout} s")
        result["script"] = script.name
        result["wall_s"] = round(time.perf_counter() - start, 1)
        results.append(result)
        print(f"{script.name}: {result.get('outcome')} ({result['wall_s']} s)", flush=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")  # partial results survive a kill
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
