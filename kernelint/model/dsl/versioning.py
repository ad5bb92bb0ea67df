"""Release versions and the API changes between them, as the DSL knowledge modules record them.

Each DSL module lists the releases kernelint knows (``RELEASES``, oldest first) and a table
``API_CHANGES`` of :class:`ApiChange` rows: an API or behaviour, what happened to it (added,
deprecated, removed, changed) and in which release, with the release note, pull request or
wheel source that says so. Rules ask the table through :func:`status_in`; nothing else in
kernelint spells a version boundary.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

Version = tuple[int, ...]

ADDED = "added"
DEPRECATED = "deprecated"
REMOVED = "removed"
CHANGED = "changed"
KINDS = (ADDED, DEPRECATED, REMOVED, CHANGED)

_VERSION = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")


def parse_version(text: str) -> Version | None:
    """``"3.3.1"`` -> ``(3, 3, 1)``; a pre-release, post-release or local suffix is dropped
    (``"3.1.0+cf34004b8a"`` -> ``(3, 1, 0)``); None for text that starts with no number."""
    match = _VERSION.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    return normalized(tuple(int(part) for part in match.group(1).split(".")))


def normalized(version: Version) -> Version:
    """Trailing zeros dropped, so ``(3, 4)`` and ``(3, 4, 0)`` compare equal."""
    parts = list(version)
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def show(version: Version) -> str:
    """``(3, 4)`` -> ``"3.4.0"``; longer versions are shown in full."""
    parts = list(version) + [0] * (3 - len(version))
    return ".".join(str(p) for p in parts)


@dataclass(frozen=True)
class ApiChange:
    """One row of a DSL's version table.

    ``api`` is a canonical qualified name (``triton.language.make_block_ptr``), a keyword of a
    call written ``qualname(keyword=)``, or a behaviour named in words. ``replacement`` names
    what to use instead; ``mechanical`` says the rewrite is a pure rename a fix may apply.
    ``source`` cites the release note, pull request or wheel source the version was read from.
    """

    api: str
    kind: str
    version: str
    source: str
    replacement: str = ""
    mechanical: bool = False
    note: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown change kind {self.kind!r}")
        if parse_version(self.version) is None:
            raise ValueError(f"unreadable version {self.version!r}")

    @property
    def at(self) -> Version:
        return parse_version(self.version)


@dataclass(frozen=True)
class Status:
    """What one API is in one target release: ``missing`` (not added yet, or removed),
    ``deprecated`` or ``ok``; ``change`` is the table row that decided it (None for ``ok``
    with no row)."""

    state: str
    change: ApiChange | None = None


OK = "ok"
MISSING = "missing"


def status_in(changes: tuple[ApiChange, ...], api: str, target: Version) -> Status:
    """The state of ``api`` in release ``target`` from its rows of ``changes``: removed at or
    before the target, or added after it, is missing; deprecated at or before it is deprecated."""
    rows = [c for c in changes if c.api == api]
    target = normalized(target)
    removed = [c for c in rows if c.kind == REMOVED and c.at <= target]
    if removed:
        return Status(MISSING, max(removed, key=lambda c: c.at))
    added = [c for c in rows if c.kind == ADDED]
    if added and all(c.at > target for c in added):
        return Status(MISSING, min(added, key=lambda c: c.at))
    deprecated = [c for c in rows if c.kind == DEPRECATED and c.at <= target]
    if deprecated:
        return Status(DEPRECATED, min(deprecated, key=lambda c: c.at))
    return Status(OK)


def removal_of(changes: tuple[ApiChange, ...], api: str) -> ApiChange | None:
    """The row that removes ``api``, if the table has one (for messages about a deprecation)."""
    return next((c for c in changes if c.api == api and c.kind == REMOVED), None)


def apis(changes: tuple[ApiChange, ...]) -> frozenset[str]:
    return frozenset(c.api for c in changes)
