"""The cache and facts from other files: a cached result is served only while every fact it read
from another module still holds, and the answer with the cache equals the answer without it."""
from __future__ import annotations

import textwrap
import time

import pytest

from kernelint import cache, runner
from kernelint.config import Settings

DESCRIPTOR_KERNEL = textwrap.dedent("""
    import triton
    import triton.language as tl

    @triton.jit
    def copy(x_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
        desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
""")
WITH_ALLOCATOR = "import triton\nimport pkg.kernels\ntriton.set_allocator(lambda size, align, stream: None)\n"
WITHOUT_ALLOCATOR = "import triton\nimport pkg.kernels\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_DIRECTORY, str(tmp_path / "cache"))
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "kernels.py").write_text(DESCRIPTOR_KERNEL)
    return tmp_path


def _codes(paths, use_cache=True):
    findings = runner.check_groups({Settings(select=("KL106",)): [str(p) for p in paths]}, jobs=1,
                                   use_cache=use_cache)
    return sorted((f.path, f.code) for f in findings)


def _edit(path, text):
    time.sleep(0.01)
    path.write_text(text)


def test_a_module_gaining_set_allocator_clears_the_cached_finding(project):
    kernels = project / "pkg" / "kernels.py"
    main = project / "main.py"
    main.write_text(WITHOUT_ALLOCATOR)
    assert _codes([kernels]) == [(str(kernels), "KL106")]
    _edit(main, WITH_ALLOCATOR)
    assert _codes([kernels]) == _codes([kernels], use_cache=False) == []


def test_a_module_losing_set_allocator_brings_the_finding_back(project):
    kernels = project / "pkg" / "kernels.py"
    main = project / "main.py"
    main.write_text(WITH_ALLOCATOR)
    assert _codes([kernels]) == []
    _edit(main, WITHOUT_ALLOCATOR)
    assert _codes([kernels]) == _codes([kernels], use_cache=False) == [(str(kernels), "KL106")]


def test_a_new_importer_that_sets_the_allocator_counts(project):
    kernels = project / "pkg" / "kernels.py"
    assert _codes([kernels]) == [(str(kernels), "KL106")]
    (project / "train.py").write_text(WITH_ALLOCATOR)
    assert _codes([kernels]) == []


def test_an_unrelated_edit_keeps_the_cached_entry(project, monkeypatch):
    kernels = project / "pkg" / "kernels.py"
    (project / "main.py").write_text(WITH_ALLOCATOR)
    (project / "notes.py").write_text("x = 1\n")
    _codes([kernels])
    checked = []
    real = runner.check_source
    monkeypatch.setattr(runner, "check_source", lambda *a, **k: checked.append(a[0]) or real(*a, **k))
    _edit(project / "notes.py", "x = 2\n")
    assert _codes([kernels]) == []
    assert checked == []


def test_a_module_joining_the_scope_refreshes_the_facts_a_cached_finding_shows(project):
    """KL106 names the modules it searched; a new importer (without an allocator) keeps the
    finding but changes that fact, so the cached text must not be served."""
    kernels = project / "pkg" / "kernels.py"

    def searched():
        findings = runner.check_groups({Settings(select=("KL106",)): [str(kernels)]}, jobs=1)
        return [fact.text for f in findings for fact in f.facts if "searched" in fact.text]

    before = searched()
    (project / "bench.py").write_text(WITHOUT_ALLOCATOR)
    after = searched()
    assert "`bench`" not in before[0] and "`bench`" in after[0]


def test_a_module_gaining_and_losing_a_re_export_refreshes_the_cached_answer(tmp_path, monkeypatch):
    """``from pkg.api import kernel``: while ``pkg/api.py`` has no import of that name, the view
    knows from the index that it re-exports nothing of that name without parsing the module;
    the cached answer must still depend on the module's text, both ways."""
    from cached_projects import copied_project, edit, finding_lines

    root = copied_project("KL102_wrapper_imports_the_kernel", tmp_path, monkeypatch)
    api, grouped = root / "pkg" / "api.py", root / "pkg" / "grouped.py"
    api.write_text('"""The public names."""\nimport torch\n')
    edit(grouped, "from pkg.kernels import grouped_copy_kernel", "from pkg.api import grouped_copy_kernel")
    assert finding_lines(grouped, "KL102") == [] == finding_lines(grouped, "KL102", use_cache=False)
    edit(api, "import torch\n", "import torch\nfrom pkg.kernels import grouped_copy_kernel\n")
    assert finding_lines(grouped, "KL102") == [8] == finding_lines(grouped, "KL102", use_cache=False)
    edit(api, "from pkg.kernels import grouped_copy_kernel\n", "")
    assert finding_lines(grouped, "KL102") == [] == finding_lines(grouped, "KL102", use_cache=False)


def test_an_importer_gaining_and_losing_a_call_refreshes_the_cached_answer(tmp_path, monkeypatch):
    """The wrapper's caller is found from the importers' text first: an importer that only holds
    the wrapper (in a list) is not parsed. The cached answer must still depend on its text, so
    that the call it gains (and loses) shows, both ways."""
    from cached_projects import copied_project, edit, finding_lines

    root = copied_project("KL126_sizes_read_in_a_wrapper_module", tmp_path, monkeypatch)
    forward, layer = root / "pkg" / "forward.py", root / "pkg" / "layer.py"
    layer.write_text("from pkg.forward import launch_forward\n\nHANDLERS = [launch_forward]\n\n\n"
                     "def run(x):\n    B, H, T, D = x.shape\n    return x\n")
    assert finding_lines(forward, "KL126") == [] == finding_lines(forward, "KL126", use_cache=False)
    edit(layer, "    return x\n", "    launch_forward(x, B, H, T, D)\n    return x\n")
    assert finding_lines(forward, "KL126") == [8] == finding_lines(forward, "KL126", use_cache=False)
    edit(layer, "    launch_forward(x, B, H, T, D)\n", "")
    assert finding_lines(forward, "KL126") == [] == finding_lines(forward, "KL126", use_cache=False)
