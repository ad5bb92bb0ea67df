"""The current hash of a recorded fact, to tell whether a cached answer that read it still holds.

``view.py`` records each fact a file's findings read from other files (``file:``, ``importers:``,
``allocator:`` keys); the cache keeps them with the findings and asks ``current`` for each before
serving the entry. An unknown or malformed key is never current, so the file is checked again.
"""
from __future__ import annotations

from pathlib import Path

from kernelint.model.project.index import index_of, runs_with_allocator, scope_names
from kernelint.model.project.modules import file_digest


def current(key: str) -> str | None:
    """The value ``key`` has now (as ``ProjectView`` would record it), or None if it cannot be
    computed."""
    kind, _, rest = key.partition(":")
    if kind == "file":
        return file_digest(Path(rest))
    if kind == "allocator":
        return "1" if runs_with_allocator(Path(rest)) else "0"
    if kind == "scope":
        from kernelint.model.project.view import _digest

        return _digest(scope_names(Path(rest)))
    if kind == "importers":
        root, _, module = rest.partition("|")
        if not root or not module:
            return None
        index = index_of(Path(root))
        return ",".join(sorted(index.importers.get(module, ())))
    return None
