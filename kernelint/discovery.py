"""Find the Python files to check: honour .gitignore files and ``exclude`` patterns.

A bad entry never ends the walk: an unreadable folder, a symlink loop named ``x.py`` or a
``.gitignore`` line that cannot be used is skipped with one warning, and every other file is
still found. A ``.gitignore`` line that git itself accepts but that matches nothing (``[z-a]``,
a trailing ``\\``, a lone ``!``) is dropped silently, as git drops it.
"""
from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path
from typing import Callable

import pathspec
from pathspec.util import normalize_file

from kernelint import patterns
from kernelint.config import Settings, path_matches
from kernelint.terminal import shown

_ALWAYS_SKIPPED = {".git", ".hg", ".svn", "__pycache__", ".kernelint_cache", ".mypy_cache",
                   ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".venv", "venv", "node_modules",
                   "build", "dist", ".eggs"}

#: A .gitignore larger than this is not read (the largest seen on real repositories is 10 kB).
_MAX_GITIGNORE_BYTES = 1024 * 1024

Warn = Callable[[str], None]


def _stderr(message: str) -> None:
    if sys.stderr is None:  # started with stderr closed: print() would fall back to stdout
        return
    try:
        print(f"kernelint: warning: {shown(message)}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):  # stderr closed: nothing left to tell
        pass


def _load_gitignore(directory: Path, warn: Warn, path: Path | None = None):
    """The patterns of ``directory/.gitignore`` (or of ``path``, read as if it were there)."""
    path = path or directory / ".gitignore"
    try:
        if not path.is_file():
            return None
        if path.stat().st_size > _MAX_GITIGNORE_BYTES:
            warn(f"{path}: not read, larger than {_MAX_GITIGNORE_BYTES // 1024} kB")
            return None
        with open(path, "rb") as handle:
            text = handle.read(_MAX_GITIGNORE_BYTES + 1).decode("utf-8", errors="replace")
    except (OSError, ValueError) as error:
        warn(f"{path}: not read: {getattr(error, 'strerror', None) or error}")
        return None
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        why = patterns.problem(line)
        if why:
            warn(f"{path}:{number}: pattern skipped: {why}")
            continue
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except Exception:  # noqa: BLE001 - git accepts the line and it matches nothing
            continue
        lines.append(line)
    return directory, pathspec.GitIgnoreSpec.from_lines(lines)


def _git_root(start: Path) -> Path | None:
    for directory in [start, *start.parents]:
        try:
            if (directory / ".git").exists():
                return directory
        except OSError:
            continue
    return None


def _under(directory: Path) -> str:
    """The prefix of the paths below ``directory``: ``str(path)[len(prefix):]`` is then what
    ``path.relative_to(directory).as_posix()`` gives (the walk joins strings, not paths)."""
    text = str(directory)
    return text if text.endswith("/") else text + "/"


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


def _any_ignoring(spec):
    """One regex that matches a path whenever one of ``spec``'s ignoring (not ``!``) patterns
    does, or None when the patterns cannot be joined safely. A path it does not match is not
    ignored by ``spec``: with ``pathspec``, each of a hundred patterns is a Python call, and
    matching was half of the walk's time. A path it matches is asked of ``spec`` itself."""
    parts = []
    for pattern in spec.patterns:
        if not getattr(pattern, "include", None):
            continue
        regex = getattr(pattern, "regex", None)
        text = getattr(regex, "pattern", None)
        if not isinstance(text, str) or regex.flags != re.UNICODE or "(?P=" in text or re.search(r"\\\d", text):
            return None  # a flag or a back reference would not survive joining
        parts.append("(?:" + _NAMED_GROUP.sub("(?:", text) + ")")
    try:
        return re.compile("|".join(parts)) if parts else _NOTHING
    except (re.error, RecursionError, OverflowError):
        return None


_NOTHING = re.compile(r"(?!)")


def _spec_below(directory: Path, spec):
    """What ``_ignored`` holds for a ``.gitignore`` read in ``directory``."""
    return _under(directory), spec, _any_ignoring(spec)


def _ignored(path: str, is_dir: bool, specs) -> bool:
    """``path`` (absolute, as the walk joins it) is ignored by one of ``specs`` (``_spec_below``)."""
    for prefix, spec, any_ignoring in specs:
        if not path.startswith(prefix):
            continue
        relative = path[len(prefix):] + ("/" if is_dir else "")
        if any_ignoring is not None and any_ignoring.search(normalize_file(relative)) is None:
            continue
        if spec.match_file(relative):
            return True
    return False


def _same_file_key(target: str) -> str:
    return os.path.normcase(os.path.abspath(target))


def discover(targets: list[str], settings: Settings, warn: Warn | None = None) -> tuple[list[str], list[str]]:
    """Python files under ``targets`` (as the user spelled them), and the targets that do not
    exist. A file named explicitly is always checked, even if ignored or not a regular file (the
    engine then says why it cannot be read). One file named several ways (``a.py ./a.py
    ../d/a.py``) is checked once, under the first spelling. Entries that cannot be read are
    skipped with one warning each (``warn``, default: a line on stderr)."""
    warn = _once(warn or _stderr)
    files: list[str] = []
    missing: list[str] = []
    for target in targets:
        path = Path(target)
        try:
            is_dir = stat.S_ISDIR(os.stat(target).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            missing.append(target)
            continue
        except (OSError, ValueError) as error:  # a symlink loop, a NUL in the name ...
            warn(f"{target}: skipped: {getattr(error, 'strerror', None) or error}")
            continue
        if not is_dir:
            files.append(target)
            continue
        absolute = path.resolve()
        root = _git_root(absolute)
        specs = []
        if root is not None:
            # The repository's own ignore list, which is never committed: patterns from the root.
            info_exclude = _load_gitignore(root, warn, root / ".git" / "info" / "exclude")
            if info_exclude:
                specs.append(info_exclude)
            for directory in reversed([absolute, *absolute.parents]):
                if directory == root or root in directory.parents:
                    if directory != absolute:
                        spec = _load_gitignore(directory, warn)
                        if spec:
                            specs.append(spec)
        specs = [_spec_below(base, spec) for base, spec in specs]
        files.extend(_walk(str(path), str(absolute), specs, settings, warn))
    unique: dict[str, str] = {}
    for file in files:
        unique.setdefault(_same_file_key(file), file)
    return sorted(unique.values()), missing


def _once(warn: Warn) -> Warn:
    said: set[str] = set()

    def once(message: str) -> None:
        if message not in said:
            said.add(message)
            warn(message)

    return once


def _not_a_file(path: Path) -> str | None:
    """What a ``*.py`` entry that is no regular file is, for the one warning the walk gives
    (a FIFO or device would block or never end if read); None for a link to a folder."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a symbolic link to nothing"
    if stat.S_ISDIR(mode):
        return None  # links to folders are not followed, as git does not follow them
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
    link = " (through a symbolic link)" if path.is_symlink() else ""
    return f"{kind}{link}, not a regular file"


def _walk(shown: str, absolute: str, specs, settings: Settings, warn: Warn):
    """The Python files below the folder ``absolute``, spelled below ``shown`` (the folder as the
    user spelled it, as ``str(Path)`` writes it). Paths are joined as strings the way ``Path``
    joins them (``shown / name``): building a ``Path`` per entry was most of the walk's time."""
    try:
        with os.scandir(absolute) as iterator:
            entries = sorted(iterator, key=lambda e: e.name)
    except OSError as error:
        _load_gitignore(Path(absolute), warn)  # read before the listing, as git does: its warnings first
        warn(f"{shown}: skipped: {error.strerror or error}")
        return
    # Only a listed .gitignore can be read (looking for it was a stat in every folder).
    own = _load_gitignore(Path(absolute), warn) if any(e.name == ".gitignore" for e in entries) else None
    if own:
        specs = [*specs, _spec_below(*own)]
    below = _under(absolute)
    shown_below = "" if shown == "." else _under(shown)
    for entry in entries:
        name = entry.name
        entry_abs = below + name
        entry_shown = shown_below + name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            if is_dir and name in _ALWAYS_SKIPPED:
                continue
            if not is_dir and not name.endswith((".py", ".pyi")):
                continue  # before the patterns: nothing else is done with such an entry
            if _ignored(entry_abs, is_dir, specs):
                continue
            if settings.exclude and path_matches(Path(entry_abs), settings.root, settings.exclude):
                continue
            if not is_dir and not entry.is_file():
                odd = _not_a_file(Path(entry_abs))
                if odd:
                    warn(f"{entry_shown}: skipped: {odd}")
                continue
        except (OSError, RuntimeError) as error:  # e.g. a symlink loop named x.py
            warn(f"{entry_shown}: skipped: {getattr(error, 'strerror', None) or error}")
            continue
        if is_dir:
            yield from _walk(entry_shown, entry_abs, specs, settings, warn)
        else:
            yield entry_shown
