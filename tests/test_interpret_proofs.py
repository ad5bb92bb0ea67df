"""CI proofs: every Triton pair marked ``interpret = true`` runs under TRITON_INTERPRET=1 on the CPU
through ``kernelint prove --interpret``, and its claim holds there: the bad kernel fails (compile,
crash) or mismatches (numerics), the good one matches the reference."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.full  # torch and Triton's interpreter: the full tier

from conftest import pair_dirs
from kernelint.prove.manifest import load_pair, tomllib


def _marked(directory) -> bool:
    """Read leniently: a broken manifest is test_manifests.py's to report, not a collection error."""
    try:
        return tomllib.loads((directory / "pair.toml").read_text(encoding="utf-8")).get("interpret") is True
    except tomllib.TOMLDecodeError:
        return False


INTERPRET_PAIRS = [d for d in pair_dirs() if d.parent.name == "triton" and _marked(d)]
BAD_OUTCOME = {"compile": ("error",), "crash": ("error", "died"), "numerics": ("mismatch",)}


@pytest.mark.interpret
@pytest.mark.parametrize("directory", INTERPRET_PAIRS, ids=[d.name for d in INTERPRET_PAIRS])
def test_claim_holds_on_the_cpu(directory, tmp_path):
    pair = load_pair(directory)
    out = tmp_path / "run.json"
    env = {k: v for k, v in os.environ.items() if k != "KERNELINT_PAIRS_ROOT"}
    done = subprocess.run([sys.executable, "-m", "kernelint", "prove", "--interpret", pair.code, "--json", str(out)],
                          capture_output=True, text=True, env=env, timeout=900)
    assert out.is_file(), done.stderr
    (record,) = json.loads(out.read_text())["pairs"]
    assert record["verdict"] == "reproduced", record["summary"] + "\n" + done.stderr[-3000:]
    assert done.returncode == 0
    assert [case["name"] for case in record["cases"]] == [case.name for case in pair.interpret_cases()]
    for case in record["cases"]:
        assert case["good"]["outcome"] == "ok", case["good"]
        if not case["control"]:
            assert case["bad"]["outcome"] in BAD_OUTCOME[pair.evidence_class], case["bad"]
