import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAIRS_ROOT = ROOT / "reference_kernels"


def pair_dirs() -> list[Path]:
    return sorted(p.parent for p in PAIRS_ROOT.glob("*/*/pair.toml"))


def pytest_collection_modifyitems(config, items):
    if os.environ.get("KERNELINT_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow robustness run; set KERNELINT_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
