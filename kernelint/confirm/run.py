"""Run a generated harness: each variant in its own process group under prove's watchdog (a
hang is a result), then the judge, and write the record."""
from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from kernelint.confirm.recipes import RECIPES
from kernelint.confirm.runtime import READY, RESULT
from kernelint.prove.runner import _Lines, child_env, kill_group

_POLL_S = 0.05


def run_variant(harness: Path, variant: str, out: Path, watchdog_s: float, setup_s: float, interpret: bool) -> dict:
    channel, stdout, stderr = out / f"{variant}.channel", out / f"{variant}.stdout", out / f"{variant}.stderr"
    channel.write_text("")
    command = [sys.executable, str(harness), "run", "--variant", variant, "--out", str(out), "--channel", str(channel)]
    began = time.monotonic()
    with open(stdout, "wb") as out_file, open(stderr, "wb") as err_file:
        proc = subprocess.Popen(command, stdout=out_file, stderr=err_file, stdin=subprocess.DEVNULL,
                                cwd=str(out), env=child_env(interpret), start_new_session=True)
    lines = _Lines(channel)
    result, running_since, killed = None, None, None
    try:
        while result is None:
            exited = proc.poll() is not None
            for line in lines.read():
                if line.startswith(READY):
                    running_since = time.monotonic()
                elif line.startswith(RESULT):
                    result = json.loads(line[len(RESULT):])
            if result is not None or exited:
                break
            now = time.monotonic()
            if running_since is not None and now - running_since > watchdog_s:
                killed = "watchdog"
            elif running_since is None and now - began > setup_s:
                killed = "setup"
            if killed:
                break
            time.sleep(_POLL_S)
    finally:
        kill_group(proc)
    tail = stderr.read_bytes()[-3000:].decode("utf-8", "replace")
    wall = round(time.monotonic() - began, 1)
    if result is not None:
        status = result.pop("status")
        outcome = {"ok": "ok", "cannot-build": "cannot-build"}.get(status, "error")
        record = {"outcome": outcome, **result, "wall_s": wall}
        if outcome == "error":
            record["error_text"] = f"{result.get('error_type')}: {result.get('error_message')}\n{tail}"
    elif killed == "watchdog":
        record = {"outcome": "timeout", "watchdog_s": watchdog_s, "wall_s": wall, "error_text": tail}
    elif killed == "setup":
        record = {"outcome": "broken", "phase": "setup", "wall_s": wall,
                  "error_text": f"setup (import, inputs) took over {setup_s:g} s\n{tail}"}
    else:
        record = {"outcome": "died" if running_since is not None else "broken", "returncode": proc.returncode,
                  "wall_s": wall, "error_text": f"process exited with code {proc.returncode} and no result\n{tail}"}
    (out / f"{variant}.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    return record


def confirm(harness: Path, spec: dict, out: Path, watchdog_s: float, setup_s: float, interpret: bool) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.json"):
        stale.unlink()
    recipe = RECIPES[spec["recipe"]]
    runs: dict[str, dict] = {}
    began = time.monotonic()
    for variant in recipe.runs:
        runs[variant] = run_variant(harness, variant, out, watchdog_s, setup_s, interpret)
        if runs[variant]["outcome"] == "cannot-build":
            break
    judged = subprocess.run([sys.executable, str(harness), "judge", "--out", str(out)], capture_output=True,
                            text=True, timeout=setup_s, env=child_env(interpret), cwd=str(out))
    lines = [line for line in judged.stdout.splitlines() if line.startswith("{")]
    verdict = json.loads(lines[-1]) if lines else {"verdict": "not reproduced",
                                                    "why": "the judge printed nothing: " + judged.stderr[-1000:]}
    record = {
        "finding": spec["finding"], "recipe": spec["recipe"], "entry": spec["entry"], "kernel": spec["kernel"],
        "fix": spec["fix"], "sizes": spec["sizes"], "control_sizes": spec["control_sizes"],
        "assumptions": spec["assumptions"], **verdict, "runs": runs, "watchdog_s": watchdog_s,
        "environment": next((r["environment"] for r in runs.values() if r.get("environment")), {}),
        "interpret": interpret, "python": platform.python_version(), "machine": platform.node(),
        "harness": str(harness), "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "wall_s": round(time.monotonic() - began, 1),
    }
    (out / "verdict.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    # The saved outputs (tens of MB for the int32 recipe) served the judge; the record keeps its figures.
    for saved in out.glob("*.pt"):
        saved.unlink()
    return record
