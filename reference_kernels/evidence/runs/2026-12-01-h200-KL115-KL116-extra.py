"""Extra H200 measurements for KL115 and KL116, beside their pairs' records.

KL115: how many times the autotuned in-place update was applied to the caller's buffer on the
first call (x starts at 0, y is 1, alpha 1, so x ends equal to the count), bad vs good.
KL116: which config the autotuner kept for each shape, called in order, and the time per shape.
Run from the repository root on the GPU machine: python reference_kernels/evidence/runs/<this file>.
"""
import importlib.util
import json
import sys
from pathlib import Path

import torch
import triton
from triton.testing import do_bench

ROOT = Path("reference_kernels/triton")


def load(pair, variant):
    spec = importlib.util.spec_from_file_location(f"{pair}_{variant}", ROOT / pair / f"{variant}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


out = {"triton": triton.__version__, "torch": torch.__version__, "gpu": torch.cuda.get_device_name()}
for variant in ("bad", "good"):
    m = load("KL115_autotune_inplace_without_restore", variant)
    x = torch.zeros(1 << 20, device="cuda")
    y = torch.ones_like(x)
    m.run(x, y, 1.0)
    torch.cuda.synchronize()
    out[f"KL115_{variant}_applications"] = [x.min().item(), x.max().item()]
for variant in ("bad", "good"):
    m = load("KL116_autotune_key_not_a_parameter", variant)
    rows = []
    for r, c in ((262144, 64), (512, 262144), (2048, 65536), (8192, 16384)):
        x = torch.randn(r, c, device="cuda")
        m.run(x)
        ms = do_bench(lambda: m.run(x))
        rows.append({"shape": [r, c], "config": str(m.row_sum.best_config), "ms": ms})
    out[f"KL116_{variant}"] = rows
json.dump(out, sys.stdout, indent=1)
