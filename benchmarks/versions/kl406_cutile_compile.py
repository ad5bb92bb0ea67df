"""KL406's pair compiled for sm_90 on a machine without a GPU with the cuda-tile this interpreter
imports (export_kernel, 1.3.0 and later), one line per file:

    PYTHONPATH=/opt/cutile PATH=/opt/cutile/nvidia/cu13/bin:$PATH python benchmarks/versions/kl406_cutile_compile.py
"""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "cutile_compile_only"))
from harness import array, compile_for, constant, ct  # noqa: E402

PAIR = ROOT / "reference_kernels" / "cutile" / "KL406_cutile_loop_variable_after_loop"
for variant in ("bad", "good"):
    spec = importlib.util.spec_from_file_location(f"kl406_{variant}", PAIR / f"{variant}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outcome = compile_for(module.row_sum_and_last,
                          [array(ct.float32, 2), array(ct.float32, 2), array(ct.float32, 2), constant(8), constant(64)])
    print(f"cuda-tile {ct.__version__} {variant}: {outcome}")
