"""Limits on gitignore-style patterns before pathspec compiles them.

pathspec turns each pattern into a backtracking regular expression: ``*a*a*a*a*ab`` took 69 s
against one 250-character file name, and a 1 MB pattern took 28 s to compile. The ``.gitignore``
reader skips such lines with a warning (git accepts them); the configuration's ``exclude``,
``extend-exclude`` and ``per-file-ignores`` refuse them with an error that names the pattern
(the user wrote them for kernelint and can fix them).
"""
from __future__ import annotations

import re

#: Longer than any path can be (PATH_MAX).
MAX_PATTERN_CHARS = 4096
#: Wildcard runs per path segment. No .gitignore of the real repositories kernelint was tried on
#: has more than two (the 46 .gitignore files on the development machine, 868 lines).
MAX_STARS_PER_SEGMENT = 3
_STARS = re.compile(r"\*+")


def problem(pattern: str) -> str | None:
    """Why ``pattern`` is not compiled, or None when it is safe to match with."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"too long (over {MAX_PATTERN_CHARS} characters)"
    if any(len(_STARS.findall(segment)) > MAX_STARS_PER_SEGMENT
           for segment in pattern.split("/") if segment != "**"):
        return (f"too many wildcards (more than {MAX_STARS_PER_SEGMENT} `*` runs in one path segment; "
                "matching such a pattern backtracks for minutes on a long file name)")
    return None
