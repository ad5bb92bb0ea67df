"""Facts read through another module's model are recorded for the checked file's cache entry.

KL121 on a dtype table follows its lookups into the module that looks it up (``ops.py``), and
from there to the kernel the looked-up type reaches (``kernels.py``): both are read through
``ops.py``'s model, whose ``ctx.project`` is the checked file's view. An edit to ``kernels.py``
that turns a value conversion into a bitcast must change the table file's cached answer, both
ways, and the cached answer must equal the uncached one."""
from __future__ import annotations

import pytest

from cached_projects import copied_project, edit, finding_lines
from kernelint.model import FileContext
from kernelint.model.project.view import ProjectView


@pytest.fixture
def project(tmp_path, monkeypatch):
    return copied_project("KL121_rounding_table_used_for_values", tmp_path, monkeypatch)


def _lines(path, use_cache=True):
    return finding_lines(path, "KL121", use_cache)


def test_a_kernel_reached_through_an_importer_changes_the_cached_answer_both_ways(project):
    table = project / "pkg" / "dtypes.py"
    kernels = project / "pkg" / "kernels.py"
    assert _lines(table) == []  # every lookup reaches a value conversion
    edit(kernels, "x.to(ROUND).to(", "x.to(ROUND, bitcast=True).to(")
    assert _lines(table) == _lines(table, use_cache=False) == [7]
    edit(kernels, "x.to(ROUND, bitcast=True).to(", "x.to(ROUND).to(")
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
