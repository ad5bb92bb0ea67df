"""KL103's and KL120's host facts and the cache: the kernel is launched, and its tensor shaped
or its block chosen, in another module, so an edit there must change the cached answer of the
kernel's file, both ways, and the answer with the cache must equal the answer without it."""
from __future__ import annotations

import pytest

from cached_projects import copied_project, edit, finding_lines

ROWS_FROM_A_MATRIX = "rows, cols = x.shape  # tokens x hidden: grows with the data"
ROWS_FROM_A_RANK_3_TENSOR = "rows, heads, cols = x.shape"


@pytest.fixture
def project(tmp_path, monkeypatch):
    return copied_project("KL103_launcher_in_another_module", tmp_path, monkeypatch)


def _lines(path, use_cache=True):
    return finding_lines(path, "KL103", use_cache)


def test_the_launching_module_changing_the_shape_changes_the_cached_answer_both_ways(project):
    kernels = project / "pkg" / "kernels.py"
    ops = project / "pkg" / "ops.py"
    assert _lines(kernels) == [10]
    edit(ops, ROWS_FROM_A_MATRIX, ROWS_FROM_A_RANK_3_TENSOR)
    assert _lines(kernels) == _lines(kernels, use_cache=False) == []
    edit(ops, ROWS_FROM_A_RANK_3_TENSOR, ROWS_FROM_A_MATRIX)
    assert _lines(kernels) == _lines(kernels, use_cache=False) == [10]


def test_a_launch_gone_from_the_other_module_clears_the_cached_answer(project):
    kernels = project / "pkg" / "kernels.py"
    ops = project / "pkg" / "ops.py"
    assert _lines(kernels) == [10]
    edit(ops, "    row_sum_kernel[(rows,)](x, out, x.stride(0), cols, BLOCK=1024)\n", "")
    assert _lines(kernels) == _lines(kernels, use_cache=False) == []


PADDED = "BLOCK=triton.next_power_of_2(cols))\n    return y\n\n\ndef row_shift"
EXACT = "BLOCK=1024)\n    return y\n\n\ndef row_shift"


def test_kl120_the_launching_module_changing_the_block_changes_the_cached_answer_both_ways(tmp_path, monkeypatch):
    """KL120 reads the block a launch passes in the importing module: a padded block there
    reports the kernel's unmasked load, an exact one does not, with the cache as without it."""
    project = copied_project("KL120_padded_block_from_the_launching_module", tmp_path, monkeypatch)
    kernels = project / "pkg" / "kernels.py"
    ops = project / "pkg" / "ops.py"
    assert finding_lines(kernels, "KL120") == [11]
    edit(ops, PADDED, EXACT)
    assert finding_lines(kernels, "KL120") == finding_lines(kernels, "KL120", False) == []
    edit(ops, EXACT, PADDED)
    assert finding_lines(kernels, "KL120") == finding_lines(kernels, "KL120", False) == [11]
