"""model/project.py: which modules run with a file, and whether one sets a Triton allocator."""
from __future__ import annotations

import textwrap

import pytest

from kernelint.model import project

KERNEL = textwrap.dedent("""
    import triton
    import triton.language as tl

    @triton.jit
    def k(x_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
        d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
""")


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_allocator_in_an_imported_package_utility_counts(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": "",
        "pkg/__init__.py": "from . import utils\n",
        "pkg/utils.py": "import triton\ntriton.set_allocator(lambda size, align, stream: None)\n",
        "pkg/ops/__init__.py": "",
        "pkg/ops/copy.py": KERNEL,
    })
    assert project.runs_with_allocator(tmp_path / "pkg/ops/copy.py")


def test_allocator_in_an_importer_counts_but_not_in_an_unrelated_script(tmp_path):
    _write(tmp_path, {
        "setup.py": "",
        "kernels.py": KERNEL,
        "bench.py": "import triton\nimport kernels\ntriton.set_allocator(None)\n",
        "other.py": KERNEL,
        "other_good.py": "import triton\n# triton.set_allocator(None)\ntriton.set_allocator(None)\n",
        "lonely.py": KERNEL,
        "commented.py": "import lonely\n# triton.set_allocator(None)\n",
    })
    assert project.runs_with_allocator(tmp_path / "kernels.py")
    assert not project.runs_with_allocator(tmp_path / "other.py")
    assert not project.runs_with_allocator(tmp_path / "lonely.py")


def test_project_root_is_the_nearest_marker(tmp_path):
    _write(tmp_path, {"a/pyproject.toml": "", "a/b/c.py": ""})
    assert project.project_root(tmp_path / "a/b/c.py") == (tmp_path / "a").resolve()


def test_an_installed_package_is_its_own_project(tmp_path):
    (tmp_path / ".git").mkdir()
    package = tmp_path / "lib" / "python3.12" / "site-packages" / "torch" / "testing"
    package.mkdir(parents=True)
    (package / "triton_utils.py").write_text("import triton\n")
    assert project.project_root(package / "triton_utils.py") == tmp_path / "lib" / "python3.12" / "site-packages" / "torch"


@pytest.mark.parametrize("text, bound", [
    ("from .impl import fwd, bwd as backward\nimport torch.nn as nn\nimport os.path\n", {"fwd", "backward", "nn", "os"}),
    ("from .impl import (\n    fwd,  # the forward\n    bwd,\n)\n", {"fwd", "bwd"}),
    ("if TYPE_CHECKING:\n    from .types import Config\n", {"Config"}),
])
def test_the_import_words_hold_every_name_an_import_binds(text, bound):
    import ast

    from kernelint.model.project.index import _import_statements, _import_words
    from kernelint.model.project.modules import absolute_aliases

    words = _import_words(text, _import_statements(text))
    assert set(absolute_aliases(ast.parse(text), "pkg.mod", False)) == bound
    assert words is not None and bound <= words


@pytest.mark.parametrize("text", [
    "x = 1; from .impl import fwd\n",
    "if fast: from .impl import fwd\n",
    "from .impl import fwd, \\\n    bwd\n",
    "from .impl import (\n    fwd,\n    # helpers (fused)\n    bwd,\n)\n",
    "from .impl import (\n    fwd,  # the forward (fused)\n    bwd,\n)\n",
    "from .impl import (  # noqa: F401 (re-exported)\n    fwd,\n)\n",
])
def test_the_import_words_are_unknown_where_the_line_scan_can_miss_a_name(text):
    from kernelint.model.project.index import _import_statements, _import_words

    assert _import_words(text, _import_statements(text)) is None
