"""The flake8 plugin reuses the tree flake8 parsed for the file it checks: the engine takes it,
so kernelint does not parse the file again, and the findings are those of ``kernelint check``."""
from __future__ import annotations

import ast
import shutil
from pathlib import Path

from kernelint import engine
from kernelint.flake8_plugin import KernelintFlake8

PROJECT = Path(__file__).parent / "projects" / "KL114_bf16_from_a_layer_module"


def test_the_checked_files_tree_is_the_one_flake8_parsed(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text('[tool.kernelint]\nselect = ["KL114"]\n')
    monkeypatch.chdir(root)
    kernel_module = root / "pkg" / "ops" / "norm.py"
    text = kernel_module.read_text(encoding="utf-8")
    tree = ast.parse(text)
    parses = []
    real_parse = engine.parse
    monkeypatch.setattr(engine, "parse", lambda source, path: parses.append(path) or real_parse(source, path))
    found = [(line, message.split()[0]) for line, _, message, _ in
             KernelintFlake8(tree, text.splitlines(True), str(kernel_module)).run()]
    assert found == [(13, "KL114")]
    assert str(kernel_module) not in parses
