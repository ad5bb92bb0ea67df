"""KL101's host facts and the cache: the tensors behind a pointer table are made in another
module, so an edit there must change the cached answer of the kernel's file, both ways, and
the answer with the cache must equal the answer without it."""
from __future__ import annotations

import pytest

from cached_projects import copied_project, edit, finding_lines


@pytest.fixture
def project(tmp_path, monkeypatch):
    return copied_project("KL101_fp16_groups_at_every_launch", tmp_path, monkeypatch)


def _lines(path, use_cache=True):
    return finding_lines(path, "KL101", use_cache)


def test_an_allocation_module_changing_dtype_changes_the_cached_answer_both_ways(project):
    kernels = project / "pkg" / "kernels.py"
    alloc = project / "pkg" / "alloc.py"
    assert _lines(kernels) == []  # every group is fp16
    edit(alloc, "dtype=torch.float16", "dtype=torch.bfloat16")
    assert _lines(kernels) == _lines(kernels, use_cache=False) == [16, 18]
    edit(alloc, "dtype=torch.bfloat16", "dtype=torch.float16")
    assert _lines(kernels) == _lines(kernels, use_cache=False) == []


def test_a_new_caller_in_another_module_changes_the_cached_answer(project):
    kernels = project / "pkg" / "kernels.py"
    assert _lines(kernels) == []
    (project / "pkg" / "serve.py").write_text(
        "import torch\nfrom pkg.launcher import group_gemm\n\n\n"
        "def serve(x, w):\n    return group_gemm([x.float()], [w.float()])\n")
    assert _lines(kernels) == _lines(kernels, use_cache=False) == [16, 17, 18]
