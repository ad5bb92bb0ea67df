"""``prove`` safety, one pair after another as a real run goes: a pair whose kernel hangs is
killed at its watchdog and a pair whose process dies (as on an illegal address) is recorded,
and the pair run after each still runs and is judged normally. (On the GPU: the H200 record
reference_kernels/evidence/runs/2026-11-30-h200-all-pairs.log, see docs/reliability.md.)"""
from __future__ import annotations

import time

import pytest
from test_prove_runner import CPU, DIES, HANGS, OFFSET, make_pair

from kernelint.prove.manifest import load_pair
from kernelint.prove.runner import run_pair

pytestmark = pytest.mark.full  # runs throwaway pairs with torch on the CPU: the full tier


def test_pairs_after_a_hang_and_a_crash_run_normally(tmp_path):
    hangs = HANGS.replace("PIDFILE", str(tmp_path / "sleeper.pid"))
    sequence = [
        ("KL951_dies", "crash", DIES, {"expect": 'bad_error = "illegal memory access"'}),
        ("KL952_after_crash", "numerics", OFFSET, {}),
        ("KL953_hangs", "hang", hangs, {"dsl": "cute", "watchdog": 2, "interpret": False}),
        ("KL954_after_hang", "numerics", OFFSET, {}),
    ]
    records = {}
    started = time.monotonic()
    for folder, evidence_class, bad, keywords in sequence:
        pair = load_pair(make_pair(tmp_path, folder, evidence_class, bad, **keywords))
        records[folder] = run_pair(pair, CPU)
    assert time.monotonic() - started < 240
    assert records["KL951_dies"]["cases"][0]["bad"]["outcome"] == "died"
    assert records["KL953_hangs"]["cases"][0]["bad"]["outcome"] == "timeout"
    for after in ("KL952_after_crash", "KL954_after_hang"):
        case = records[after]["cases"][0]
        assert case["good"]["outcome"] == "ok" and case["bad"]["outcome"] == "mismatch", case
        assert records[after]["verdict"] == "reproduced"
