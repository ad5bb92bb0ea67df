"""Peak rates of the GPUs kernelint's records are measured on, so a perf record can say how close
the good kernel comes to the machine's roofline (a slow "good" side would make any ratio look
good). Stdlib only: the report reads old records with it too.

A pair's ``work(case)`` returns ``(amount, unit)`` or ``(amount, unit, peak)``; ``peak`` names
the ceiling that bounds the kernel (default: dense fp16/bf16 tensor-core FLOP/s for ``"FLOP"``,
HBM bandwidth for ``"B"``).
"""
from __future__ import annotations

#: Vendor data-sheet peaks (dense, no sparsity), per second. H200 SXM: 989 TFLOP/s fp16/bf16
#: tensor core, 67 TFLOP/s fp32 on CUDA cores, 4.8 TB/s HBM3e.
PEAKS: dict[str, dict[str, float]] = {
    "H200": {"tensor-fp16": 989e12, "fp32": 67e12, "hbm": 4.8e12},
}
DEFAULT_PEAK = {"FLOP": "tensor-fp16", "B": "hbm"}
PEAK_LABELS = {"tensor-fp16": "dense fp16/bf16 tensor-core peak", "fp32": "fp32 CUDA-core peak",
               "hbm": "HBM bandwidth"}


def peak_rate(gpu: str | None, peak: str) -> float | None:
    """The peak (per second) of ``gpu`` (a device name such as ``NVIDIA H200``), or None if unknown."""
    if not gpu:
        return None
    for model, peaks in PEAKS.items():
        if model in gpu.split():
            return peaks.get(peak)
    return None


def fraction(run: dict, gpu: str | None) -> float | None:
    """``run``'s measured throughput as a fraction of ``gpu``'s peak for that kind of work."""
    if "roofline_fraction" in run:
        return run["roofline_fraction"]
    if not isinstance(run.get("throughput"), (int, float)):
        return None
    unit = "FLOP" if run.get("throughput_unit") == "TFLOP/s" else "B"
    rate = peak_rate(gpu, run.get("peak") or DEFAULT_PEAK[unit])
    if rate is None:
        return None
    scale = 1e12 if unit == "FLOP" else 1e9
    return run["throughput"] * scale / rate
