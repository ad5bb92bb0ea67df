"""The prove runner on throwaway pairs (plain torch on the CPU, no GPU, no DSL): errors are caught
and matched, wrong numbers are measured, hangs and their child processes are killed, perf figures
and verdicts follow the rules in reference_kernels/README.md, and the CLI writes the records."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytestmark = pytest.mark.full  # runs throwaway pairs with torch on the CPU: the full tier

from kernelint.prove.manifest import load_pair
from kernelint.prove.runner import Options, judge_pair, run_pair

REFERENCE = """
import torch

def make_inputs(case, device):
    return {"x": torch.arange(case["n"], dtype=torch.float32, device=device)}

def reference(x):
    return x * 2

def work(case):
    return case["n"] * 4 * 2, "B"
"""
GOOD = "import torch\n\ndef run(x):\n    return x * 2\n"


def make_pair(root: Path, folder: str, evidence_class: str, bad: str, *, dsl="triton", good=GOOD, expect="",
              cases=("n = 8",), watchdog=30, interpret=True, extra="") -> Path:
    directory = root / dsl / folder
    directory.mkdir(parents=True)
    case_tables = "\n".join(f"[[cases]]\nname = \"c{i}\"\ncpu = true\n{body}\n" for i, body in enumerate(cases))
    (directory / "pair.toml").write_text(textwrap.dedent(f"""\
        code = "{folder[:5]}"
        dsl = "{dsl}"
        evidence_class = "{evidence_class}"
        entry = "run"
        watchdog_s = {watchdog}
        interpret = {str(interpret).lower()}
        claim = "a throwaway claim"
        {extra}
        [expect]
        atol = 1e-6
        rtol = 1e-6
        {expect}
        """) + case_tables)
    (directory / "reference.py").write_text(REFERENCE)
    (directory / "good.py").write_text(good)
    (directory / "bad.py").write_text(textwrap.dedent(bad))
    return directory


CPU = Options(device="cpu")
RAISES = """
    import torch

    def run(x):
        raise ValueError("Expected dtype ['fp32', 'fp64'] but got fp16")
    """
DIES = """
    import os, sys

    def run(x):
        sys.stderr.write("CUDA error: an illegal memory access was encountered\\n")
        sys.stderr.flush()
        os.abort()
    """
HANGS = """
    import subprocess, sys, time

    def run(x):
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open("PIDFILE", "w") as pid:
            pid.write(str(sleeper.pid))
        time.sleep(600)
    """
SLOW_IMPORT = "import time\ntime.sleep(3)\n\ndef run(x):\n    return x * 2\n"
SLOW = "import time\n\ndef run(x):\n    time.sleep(0.02)\n    return x * 2\n"
# prints a fake marker without a newline: the result channel must not be confused by kernel output
OFFSET = "def run(x):\n    print('KERNELINT-RESULT {}', end='')\n    return x * 2 + 0.5\n"

#: folder -> (class, bad.py, keyword arguments of make_pair)
PAIRS = {
    "KL901_raises": ("compile", RAISES, {"expect": 'bad_error = "but got fp16"'}),
    "KL902_other_error": ("compile", "def run(x):\n    raise KeyError('something else')\n",
                          {"expect": 'bad_error = "but got fp16"'}),
    "KL903_dies": ("crash", DIES, {"expect": 'bad_error = "illegal memory access"'}),
    "KL904_numerics": ("numerics", OFFSET, {"cases": ("n = 8", "n = 16")}),
    "KL905_right_bad": ("numerics", GOOD, {}),
    "KL906_broken_good": ("numerics", "def run(x):\n    return x\n", {"good": "def run(x):\n    return x[:-1] * 2\n"}),
    "KL907_control": ("numerics", "def run(x):\n    return x * 2 + (x.numel() > 8)\n",
                      {"cases": ("n = 16", "n = 8\ncontrol = true")}),
    "KL908_hangs": ("hang", HANGS, {"dsl": "cute", "watchdog": 2, "interpret": False}),
    "KL909_slow_import": ("hang", SLOW_IMPORT, {"dsl": "cute", "watchdog": 2, "interpret": False}),
    "KL910_setup_fails": ("crash", "raise ImportError('no such DSL')\n", {"expect": 'bad_error = "no such DSL"'}),
    "KL911_slow": ("perf", SLOW, {"cases": ("n = 8", "n = 16", "n = 32", "n = 4\ncontrol = true"), "interpret": False}),
}


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Every throwaway pair run once, several at a time (each run is a fresh Python with torch)."""
    root = tmp_path_factory.mktemp("pairs")
    bad_files = {folder: bad.replace("PIDFILE", str(root / "sleeper.pid")) for folder, (_, bad, _) in PAIRS.items()}
    pairs = [load_pair(make_pair(root, folder, cls, bad_files[folder], **kw)) for folder, (cls, _, kw) in PAIRS.items()]
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = dict(zip(PAIRS, pool.map(lambda pair: run_pair(pair, CPU), pairs)))
    done["wall_s"] = time.monotonic() - start
    done["root"] = root
    return done


def test_compile_pair_bad_raises_matching_error(records):
    record = records["KL901_raises"]
    case = record["cases"][0]
    assert case["bad"]["outcome"] == "error" and case["bad"]["error_type"] == "ValueError"
    assert case["good"]["outcome"] == "ok" and case["good"]["max_abs"] == 0
    assert case["reproduced"] and record["verdict"] == "reproduced"
    assert "ValueError: Expected dtype" in record["summary"]


def test_compile_pair_with_other_error_does_not_reproduce(records):
    record = records["KL902_other_error"]
    assert record["verdict"] == "not-reproduced"
    assert "KeyError" in record["reason"]


def test_crash_by_dying_process_matches_stderr(records):
    record = records["KL903_dies"]
    bad_run = record["cases"][0]["bad"]
    assert bad_run["outcome"] == "died" and "SIGABRT" in bad_run["error_text"]
    assert record["verdict"] == "reproduced"


def test_numerics_pair_measures_both_errors(records):
    record = records["KL904_numerics"]
    assert record["verdict"] == "reproduced"
    for case in record["cases"]:
        assert case["bad"]["outcome"] == "mismatch" and case["bad"]["max_abs"] == pytest.approx(0.5)
        assert case["bad"]["max_rel"] == "inf"  # reference is 0 at x = 0
        assert case["bad"]["mismatched"] == case["bad"]["numel"]
        assert case["good"]["outcome"] == "ok" and case["good"]["max_abs"] == 0
    assert "5.00e-01" in record["outcome"]


def test_numerics_pair_whose_bad_is_right_is_not_reproduced(records):
    assert records["KL905_right_bad"]["verdict"] == "not-reproduced"


def test_broken_good_kernel_breaks_the_pair(records):
    record = records["KL906_broken_good"]
    assert record["verdict"] == "good-failed"
    assert "shape (7,) != reference (8,)" in record["reason"]


def test_control_cases_are_recorded_but_not_counted(records):
    record = records["KL907_control"]
    assert record["verdict"] == "reproduced"
    assert [c["bad"]["outcome"] for c in record["cases"]] == ["mismatch", "ok"]


def _gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status  # killed, waiting for init to reap it


def test_hang_is_killed_with_its_whole_process_group(records):
    record = records["KL908_hangs"]
    assert records["wall_s"] < 120
    assert record["cases"][0]["bad"]["outcome"] == "timeout"
    assert record["cases"][0]["good"]["outcome"] == "ok"
    assert record["verdict"] == "reproduced"
    assert "2 s watchdog" in record["summary"]
    assert _gone(int((records["root"] / "sleeper.pid").read_text())), "the kernel's child process survived"


def test_watchdog_starts_at_the_kernel_call_not_at_import(records):
    record = records["KL909_slow_import"]
    assert record["cases"][0]["bad"]["outcome"] == "ok"
    assert record["verdict"] == "not-reproduced"


def test_setup_failure_is_broken_not_reproduced(records):
    record = records["KL910_setup_fails"]
    assert record["cases"][0]["bad"]["outcome"] == "broken"
    assert record["verdict"] == "not-reproduced"


def test_perf_pair_ratios_and_median(records):
    record = records["KL911_slow"]
    assert record["verdict"] == "reproduced"
    assert record["median_ratio"] > 1.2
    for case in record["cases"]:
        assert case["ratio"] == pytest.approx(case["bad"]["time_ms"] / case["good"]["time_ms"])
        assert case["bad"]["throughput_unit"] == "GB/s"


def test_perf_verdict_follows_the_threshold(tmp_path):
    pair = load_pair(make_pair(tmp_path, "KL905_slow", "perf", GOOD, cases=("n = 1", "n = 2", "n = 3", "n = 4\ncontrol = true"),
                               interpret=False))

    def case(ratio, control=False):
        return {"name": "c", "control": control, "ratio": ratio, "bad": {"outcome": "ok"}, "good": {"outcome": "ok"}}

    assert judge_pair(pair, [case(1.1), case(1.3), case(1.25)])[:1] == ("reproduced",)
    verdict, _, extra = judge_pair(pair, [case(1.1), case(1.3), case(1.0), case(9.0, control=True)])
    assert verdict == "not-reproduced" and extra["median_ratio"] == pytest.approx(1.1)


def _prove(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "KERNELINT_PAIRS_ROOT": str(root)}
    return subprocess.run([sys.executable, "-m", "kernelint", "prove", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_cli_interpret_writes_run_and_evidence(tmp_path):
    root = tmp_path / "pairs"
    make_pair(root, "KL901_raises", "compile", "def run(x):\n    raise ValueError('fp16')\n",
              expect='bad_error = "fp16"')
    make_pair(root, "KL903_numerics", "numerics", "def run(x):\n    return x\n")
    make_pair(root, "KL906_gpu_only", "numerics", "def run(x):\n    return x\n", interpret=False)
    out = tmp_path / "out"
    done = _prove(root, "--interpret", "--json", str(out / "run.json"), "--evidence-dir", str(out / "evidence"))
    assert done.returncode == 0, done.stderr
    run = json.loads((out / "run.json").read_text())
    assert run["complete"] and run["interpret"]
    assert run["counts"] == {"reproduced": 2, "not-reproduced": 0, "good-failed": 0, "skipped": 1}
    assert run["command"].startswith("kernelint prove --json")
    environment_keys = {"gpu", "compute_capability", "driver", "torch", "triton", "cutlass_dsl", "python"}
    assert environment_keys <= set(run["environment"])
    assert sorted(p.name for p in (out / "evidence").iterdir()) == ["KL901.json", "KL903.json"]
    record = json.loads((out / "evidence" / "KL903.json").read_text())
    for key in ("code", "verdict", "evidence_class", "summary", "cases", "environment", "date", "command"):
        assert key in record
    assert "[3/3]" in done.stderr and "KL903 numerics: bad max abs error" in done.stderr


def test_cli_exit_codes(tmp_path):
    root = tmp_path / "pairs"
    make_pair(root, "KL903_numerics", "numerics", GOOD)  # bad is right: not reproduced
    assert _prove(root, "--interpret").returncode == 1
    unknown = _prove(root, "--interpret", "KL999")
    assert unknown.returncode == 2 and "no reference pair for KL999" in unknown.stderr
    assert _prove(tmp_path / "empty", "--interpret").returncode == 2


def test_cli_without_gpu_is_a_usage_error(tmp_path):
    root = tmp_path / "pairs"
    make_pair(root, "KL903_numerics", "numerics", GOOD)
    done = subprocess.run([sys.executable, "-m", "kernelint", "prove"], capture_output=True, text=True,
                          env={**os.environ, "KERNELINT_PAIRS_ROOT": str(root), "CUDA_VISIBLE_DEVICES": ""},
                          timeout=300)
    assert done.returncode == 2
    assert "no CUDA GPU" in done.stderr and "--interpret" in done.stderr
