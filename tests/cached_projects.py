"""Helpers for the cache tests that edit one module of a copied fixture project and compare
the cached answer with the uncached one."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from kernelint import cache, runner
from kernelint.config import Settings

PROJECTS = Path(__file__).parent / "projects"


def copied_project(name: str, tmp_path: Path, monkeypatch) -> Path:
    """A copy of ``tests/projects/<name>`` with the cache in ``tmp_path``."""
    monkeypatch.setenv(cache.ENV_DIRECTORY, str(tmp_path / "cache"))
    root = tmp_path / "project"
    shutil.copytree(PROJECTS / name, root)
    return root


def finding_lines(path: Path, code: str, use_cache: bool = True) -> list[int]:
    findings = runner.check_groups({Settings(select=(code,)): [str(path)]}, jobs=1, use_cache=use_cache)
    return sorted(f.line for f in findings)


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must be there) by ``new``, a clock tick after the last write."""
    time.sleep(0.01)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
