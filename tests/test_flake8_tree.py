"""The flake8 plugin reuses the tree flake8 parsed: for the file it checks (the engine takes it)
and for later questions from other files about that file (it is offered to the project's parsed
modules, as ``kernelint check`` offers the trees it parses), so kernelint does not parse it again."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

from kernelint.flake8_plugin import KernelintFlake8
from kernelint.model.project import modules
from kernelint.model.project.index import imported_elsewhere

PROJECT = Path(__file__).parent / "projects" / "KL114_bf16_from_a_layer_module"


def _check(path: Path, tree: ast.Module) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    return [(line, message.split()[0]) for line, _, message, _ in
            KernelintFlake8(tree, text.splitlines(True), str(path)).run()]


def test_an_imported_files_tree_is_the_one_flake8_parsed(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text('[tool.kernelint]\nselect = ["KL114"]\n')
    monkeypatch.chdir(root)
    kernel_module = root / "pkg" / "ops" / "norm.py"
    assert imported_elsewhere(kernel_module)
    tree = ast.parse(kernel_module.read_text(encoding="utf-8"))
    assert _check(kernel_module, tree) == [(13, "KL114")]
    parses = []
    monkeypatch.setattr(modules, "parse", lambda source, path: parses.append(path) or ast.parse(source))
    loaded = modules.load(kernel_module.resolve(), "pkg.ops.norm")
    assert loaded is not None and loaded.tree is tree and parses == []


def test_a_file_nothing_imports_is_not_kept(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    monkeypatch.chdir(root)
    layer_module = root / "pkg" / "layers" / "norm.py"
    assert not imported_elsewhere(layer_module)
    tree = ast.parse(layer_module.read_text(encoding="utf-8"))
    _check(layer_module, tree)
    loaded = modules.load(layer_module.resolve(), "pkg.layers.norm")
    assert loaded is not None and loaded.tree is not tree
