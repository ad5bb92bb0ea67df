"""The prove progress bar (drawn only on a terminal) and the roofline fraction of perf runs."""
from __future__ import annotations

import io
from pathlib import Path

from kernelint.prove import roofline
from kernelint.prove.cli import _Progress
from kernelint.prove.manifest import Case, Pair


def _pair(code: str) -> Pair:
    return Pair(directory=Path(f"/x/triton/{code}_some_rule"), code=code, dsl="triton", evidence_class="perf",
                entry="run", watchdog_s=1.0, interpret=False, requires=("torch",), claim="c", atol=0.0, rtol=0.0)


def _record(code: str) -> dict:
    return {"code": code, "name": "some-rule", "outcome": "median bad/good time 2.00x", "verdict": "reproduced",
            "wall_s": 3.0}


def test_progress_on_a_terminal_draws_pairs_done_current_case_and_elapsed():
    stream = io.StringIO()
    progress = _Progress(2, stream=stream, tty=True)
    progress.case_started(_pair("KL204"), "bad", "65536-problems")
    progress.run_done(_pair("KL204"), "bad", Case("65536-problems", {}), {"outcome": "ok"})
    progress.pair_done(_record("KL204"))
    progress.case_started(_pair("KL207"), "good", "64-tensors")
    bar = progress.bar()
    progress.close()
    text = stream.getvalue()
    assert "[1/2] KL204 some-rule: median bad/good time 2.00x (reproduced, 3 s)\n" in text
    assert "KL204 bad  65536-problems: ok\n" in text
    assert "\r\033[K[" in text and "0/2 pairs" in text and "KL204 bad 65536-problems" in text
    assert bar.startswith("[############............] 1/2 pairs | 0:0") and bar.endswith("KL207 good 64-tensors")
    assert text.endswith("\r\033[K"), "the bar is cleared when prove ends"


def test_progress_elsewhere_prints_lines_only():
    stream = io.StringIO()
    progress = _Progress(1, stream=stream, tty=False)
    progress.case_started(_pair("KL204"), "bad", "case")
    progress.pair_done(_record("KL204"))
    progress.close()
    assert stream.getvalue() == "[1/1] KL204 some-rule: median bad/good time 2.00x (reproduced, 3 s)\n"


def test_roofline_fraction_of_known_and_unknown_gpus():
    flops = {"throughput": 494.5, "throughput_unit": "TFLOP/s"}
    assert roofline.fraction(flops, "NVIDIA H200") == 0.5
    assert roofline.fraction({**flops, "peak": "fp32"}, "NVIDIA H200") == 494.5e12 / 67e12
    assert roofline.fraction({"throughput": 2400.0, "throughput_unit": "GB/s"}, "NVIDIA H200") == 0.5
    assert roofline.fraction(flops, "NVIDIA GeForce RTX 4090") is None
    assert roofline.fraction(flops, None) is None
    assert roofline.fraction({"time_ms": 1.0}, "NVIDIA H200") is None
    assert roofline.fraction({**flops, "roofline_fraction": 0.25}, "NVIDIA H200") == 0.25
