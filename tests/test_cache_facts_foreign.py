"""Facts read through another module's model are recorded for the checked file's cache entry.

KL121 on a dtype table follows its lookups into the module that looks it up (``ops.py``), and
from there to the kernel the looked-up type reaches (``kernels.py``): both are read through
``ops.py``'s model, whose ``ctx.project`` is the checked file's view. An edit to ``kernels.py``
that turns a value conversion into a bitcast must change the table file's cached answer, both
ways, and the cached answer must equal the uncached one."""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from kernelint import cache, runner
from kernelint.config import Settings
from kernelint.model import FileContext
from kernelint.model.project.view import ProjectView

PROJECT = Path(__file__).parent / "projects" / "KL121_rounding_table_used_for_values"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_DIRECTORY, str(tmp_path / "cache"))
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    return root


def _lines(path, use_cache=True):
    findings = runner.check_groups({Settings(select=("KL121",)): [str(path)]}, jobs=1, use_cache=use_cache)
    return sorted(f.line for f in findings)


def _edit(path, old, new):
    time.sleep(0.01)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_a_kernel_reached_through_an_importer_changes_the_cached_answer_both_ways(project):
    table = project / "pkg" / "dtypes.py"
    kernels = project / "pkg" / "kernels.py"
    assert _lines(table) == []  # every lookup reaches a value conversion
    _edit(kernels, "x.to(ROUND).to(", "x.to(ROUND, bitcast=True).to(")
    assert _lines(table) == _lines(table, use_cache=False) == [7]
    _edit(kernels, "x.to(ROUND, bitcast=True).to(", "x.to(ROUND).to(")
    assert _lines(table) == _lines(table, use_cache=False) == []


def test_another_modules_model_answers_through_the_checked_files_view(project):
    path = project / "pkg" / "dtypes.py"
    source = path.read_text()
    import ast

    ctx = FileContext(str(path), source, ast.parse(source), ())
    view = ctx.project
    assert isinstance(view, ProjectView)
    ops = view.context_of("pkg.ops")
    assert ops is not None and ops.project is view
    view.release()
    assert "project" not in ops.__dict__
