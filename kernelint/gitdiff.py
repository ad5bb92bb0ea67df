"""Lines changed since a git revision, for ``kernelint check --diff REF``."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


class GitError(Exception):
    pass


def _git(args: list[str], cwd: Path) -> str:
    try:
        result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                                encoding="utf-8", errors="replace")
    except OSError as error:
        raise GitError(f"cannot run git: {error.strerror or error}") from None
    if result.returncode != 0:
        raise GitError(result.stderr.strip() or f"git {' '.join(args)} failed")
    return result.stdout


def repository_root(cwd: Path) -> Path | None:
    try:
        return Path(_git(["rev-parse", "--show-toplevel"], cwd).strip()).resolve()
    except GitError:
        return None


def changed_lines(ref: str, cwd: Path) -> dict[Path, set[int] | None]:
    """Absolute path -> the line numbers (in the working tree) added or changed since ``ref``;
    None for a file that git does not track yet (every line of it is new)."""
    root = repository_root(cwd)
    if root is None:
        raise GitError(f"--diff needs a git repository; {cwd} is not in one")
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], root)
    except GitError:
        raise GitError(f"no commit named {ref!r} in the repository at {root}: give a branch, tag or "
                       "commit it has (in a shallow CI checkout, fetch it first, e.g. "
                       "`git fetch origin main` for origin/main)") from None
    diff = _git(["-c", "core.quotePath=false", "diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-renames", ref, "--"], root)
    changed: dict[Path, set[int] | None] = {}
    current: set[int] | None = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            name = line[4:].rstrip("\t")
            if name == "/dev/null":
                current = None
                continue
            name = _unquote(name)
            current = changed.setdefault(root / (name[2:] if name.startswith("b/") else name), set())
        elif line.startswith("@@") and current is not None:
            match = _HUNK.match(line)
            if match:
                start, count = int(match.group(1)), int(match.group(2) or 1)
                current.update(range(start, start + count))
    for name in _git(["ls-files", "--others", "--exclude-standard", "-z"], root).split("\0"):
        if name:
            changed[root / name] = None
    return changed


def _unquote(name: str) -> str:
    """git quotes unusual names ("a\\tb.py"); undo the C-style escapes."""
    if not (name.startswith('"') and name.endswith('"')):
        return name
    try:
        return name[1:-1].encode("utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")
    except (UnicodeError, ValueError):
        return name[1:-1]


def touches(changed: dict[Path, set[int] | None], path: str, first: int, last: int) -> bool:
    absolute = Path(path).resolve()
    if absolute not in changed:
        return False
    lines = changed[absolute]
    return lines is None or any(number in lines for number in range(first, max(first, last) + 1))
