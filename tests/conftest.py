import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAIRS_ROOT = ROOT / "reference_kernels"

#: What the full tier's tests run besides kernelint: ``pip install -e '.[full]'`` installs them.
FULL_TIER_MODULES = ("torch", "triton", "flake8", "pylint", "pre_commit", "build", "hypothesmith", "matplotlib", "pylsp")
TIERS = ("light", "full", "all")


def pair_dirs() -> list[Path]:
    return sorted(p.parent for p in PAIRS_ROOT.glob("*/*/pair.toml"))


def pytest_addoption(parser):
    parser.addoption(
        "--tier", choices=TIERS, default=os.environ.get("KERNELINT_TEST_TIER"),
        help="light: the tests that need only the `test` extra (the default for the whole suite); "
             "full: the tests marked `full` (Triton interpreter, torch, the flake8/pylint/pre-commit "
             "hosts; `full` extra); all: both (the default when test files or ids are named). "
             ".ci/run runs light, then full.")


def tier_of(config) -> str:
    """The tier asked for; unasked, the light tier for the whole suite and everything for named
    test files (``pytest tests/test_plugins.py`` runs that file's tests whatever their tier)."""
    tier = config.getoption("--tier")
    if tier:
        return tier
    named = [arg for arg in config.args if "::" in arg or arg.endswith(".py")]
    return "all" if named else "light"


def pytest_configure(config):
    tier = config.getoption("--tier")
    if tier in ("full", "all"):
        # A missing dependency would turn the full tier into skips that pass: refuse instead.
        missing = [m for m in FULL_TIER_MODULES if importlib.util.find_spec(m) is None]
        if missing:
            raise pytest.UsageError(f"--tier {tier} needs {', '.join(missing)}: "
                                    "python3 -m pip install -e '.[full]' (see DEVELOPERS.md)")


def pytest_ignore_collect(collection_path, config):
    """In the light tier a module marked ``full`` as a whole is not even imported: it may import
    what only the full tier installs (flake8, torch) at its top."""
    if collection_path.suffix == ".py" and collection_path.name.startswith("test_") and tier_of(config) == "light":
        try:
            text = collection_path.read_text(encoding="utf-8")
        except OSError:
            return None
        if "\npytestmark = pytest.mark.full" in text:
            return True
    return None


def pytest_collection_modifyitems(config, items):
    tier = tier_of(config)
    if tier != "all":
        wanted = tier == "full"
        kept = [item for item in items if ("full" in item.keywords) == wanted]
        dropped = [item for item in items if ("full" in item.keywords) != wanted]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
    if os.environ.get("KERNELINT_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow robustness run; set KERNELINT_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In the light tier a test that skips for want of a full-tier package fails instead: it
    belongs in the full tier (``@pytest.mark.full``), where that package is installed, not in a
    skip that passes."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and tier_of(item.config) == "light" and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if any(f"could not import '{module}'" in reason for module in FULL_TIER_MODULES):
            report.outcome = "failed"
            report.longrepr = f"{item.nodeid}: {reason}; mark it @pytest.mark.full (DEVELOPERS.md, Tests)"
