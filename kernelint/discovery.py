"""Find the Python files to check: honour .gitignore files and ``exclude`` patterns."""
from __future__ import annotations

import os
from pathlib import Path

import pathspec

from kernelint.config import Settings, path_matches

_ALWAYS_SKIPPED = {".git", ".hg", ".svn", "__pycache__", ".kernelint_cache", ".mypy_cache",
                   ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".venv", "venv", "node_modules",
                   "build", "dist", ".eggs"}


def _load_gitignore(directory: Path):
    path = directory / ".gitignore"
    if not path.is_file():
        return None
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return directory, pathspec.GitIgnoreSpec.from_lines(lines)


def _git_root(start: Path) -> Path | None:
    for directory in [start, *start.parents]:
        if (directory / ".git").exists():
            return directory
    return None


def _ignored(path: Path, is_dir: bool, specs) -> bool:
    for base, spec in specs:
        try:
            relative = path.relative_to(base).as_posix()
        except ValueError:
            continue
        if spec.match_file(relative + ("/" if is_dir else "")):
            return True
    return False


def discover(targets: list[str], settings: Settings) -> tuple[list[str], list[str]]:
    """Python files under ``targets`` (as the user spelled them), and the targets that do not
    exist. A file named explicitly is always checked, even if ignored."""
    files: list[str] = []
    missing: list[str] = []
    for target in targets:
        path = Path(target)
        if path.is_file():
            files.append(target)
            continue
        if not path.is_dir():
            missing.append(target)
            continue
        absolute = path.resolve()
        root = _git_root(absolute)
        specs = []
        if root is not None:
            for directory in reversed([absolute, *absolute.parents]):
                if directory == root or root in directory.parents:
                    if directory != absolute:
                        spec = _load_gitignore(directory)
                        if spec:
                            specs.append(spec)
        files.extend(_walk(path, absolute, specs, settings))
    return sorted(dict.fromkeys(files)), missing


def _walk(shown: Path, absolute: Path, specs, settings: Settings):
    own = _load_gitignore(absolute)
    specs = [*specs, own] if own else specs
    try:
        entries = sorted(os.scandir(absolute), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        entry_abs = absolute / entry.name
        entry_shown = shown / entry.name
        is_dir = entry.is_dir(follow_symlinks=False)
        if is_dir and entry.name in _ALWAYS_SKIPPED:
            continue
        if _ignored(entry_abs, is_dir, specs):
            continue
        if settings.exclude and path_matches(entry_abs, settings.root, settings.exclude):
            continue
        if is_dir:
            yield from _walk(entry_shown, entry_abs, specs, settings)
        elif entry.name.endswith((".py", ".pyi")) and entry.is_file():
            yield str(entry_shown)
