"""The built wheel installs everything under ``kernelint`` and nothing else at the top level."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

import pytest

pytestmark = pytest.mark.full  # builds the wheel with `build`: the full tier

from conftest import ROOT, pair_dirs

pytest.importorskip("build")
SOURCES = ("pyproject.toml", "README.md", "kernelint", "checkers", "reference_kernels")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from a copy of the sources (building in the clone would leave build/ there),
    with one extra pair and evidence record to prove the package-data globs pick them up."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    source.mkdir()
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=junk)
        elif (ROOT / name).is_file():
            shutil.copy2(ROOT / name, source / name)
    fake = source / "reference_kernels" / "triton" / "KL999_packaging_probe"
    fake.mkdir(parents=True)
    for name in ("bad.py", "good.py", "reference.py", "pair.toml"):
        (fake / name).write_text("# probe\n", encoding="utf-8")
    (source / "reference_kernels" / "evidence").mkdir(exist_ok=True)
    (source / "reference_kernels" / "evidence" / "KL999.json").write_text("{}\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(work / "dist"), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    [built] = (work / "dist").glob("kernelint-*.whl")
    with zipfile.ZipFile(built) as archive:
        yield archive


def test_only_kernelint_at_the_top_level(wheel):
    top = {name.split("/", 1)[0] for name in wheel.namelist()}
    assert "kernelint" in top
    assert all(name == "kernelint" or (name.startswith("kernelint-") and name.endswith(".dist-info"))
               for name in top), sorted(top)


def test_rules_and_front_ends_are_inside(wheel):
    names = set(wheel.namelist())
    checkers = {f"kernelint/checkers/{p.relative_to(ROOT / 'checkers').as_posix()}" for p in (ROOT / "checkers").rglob("*.py")}
    assert checkers and checkers <= names, sorted(checkers - names)
    for module in ("cli", "engine", "flake8_plugin", "pylint_plugin", "output/sarif"):
        assert f"kernelint/{module}.py" in names


def test_reference_pairs_and_evidence_are_inside(wheel):
    names = set(wheel.namelist())
    expected = {"kernelint/reference_kernels/evidence/KL999.json"} | {
        f"kernelint/reference_kernels/triton/KL999_packaging_probe/{name}"
        for name in ("bad.py", "good.py", "reference.py", "pair.toml")
    }
    for pair in pair_dirs():
        folder = f"kernelint/reference_kernels/{pair.parent.name}/{pair.name}"
        expected |= {f"{folder}/bad.py", f"{folder}/good.py", f"{folder}/pair.toml"}
    for record in (ROOT / "reference_kernels" / "evidence").glob("*.json"):
        expected.add(f"kernelint/reference_kernels/evidence/{record.name}")
    assert expected <= names, sorted(expected - names)


def test_entry_points(wheel):
    [entry_points] = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode()
    assert "kernelint = kernelint.cli:run" in text
    assert "KL = kernelint.flake8_plugin:KernelintFlake8" in text
