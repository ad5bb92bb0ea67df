"""Findings of per-kernel rules kept between checks of one file, for the language server:
typing in one kernel of a file of eleven need not run the costly analyses of the other ten again
(on mamba's ``ssd_chunk_scan.py`` KL103 is about half of a re-check).

A kernel's findings are reused only when nothing they could have read has changed:

- the text of the kernel and of every kernel in its component of the file's call graph (the
  kernels whose text names it or that its text names, transitively: helpers and callers);
- all of the file outside the other kernels' bodies (host code, launches, grids, constants,
  imports, decorators and signatures), character for character;
- the number of lines of each of those other bodies, so every line and column a reused finding
  carries is still right. A kernel that had no findings keeps none when only those numbers
  changed (a line added in another kernel): with nothing to place, no position can be stale,
  and a shift of whole lines keeps every node's order. A new line in host code runs every
  kernel again;
- the options the file is checked with;
- the other modules' facts, which the process reads from disk and keeps until
  ``index.look_again`` (a save, a watched file): ``forget`` is called with it.

A body is never left out of the key when it could bind a module name (``global``,
``nonlocal``) or shares a line with its signature. What a rule's ``check_kernel`` reads must
stay within that: the kernel, its component, and the file's host code.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Hashable

if TYPE_CHECKING:
    from kernelint.findings import Finding
    from kernelint.model.kernels import Kernel

_WORD = re.compile(r"\w+")
#: A line with its end, as ``ast`` counts lines (``str.splitlines`` also breaks at form feeds).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
#: Files whose kernels' findings are kept (the buffers being edited).
MAX_FILES = 16


@dataclass(frozen=True)
class Entry:
    findings: tuple["Finding", ...]
    #: Facts from other files the findings read (``ProjectView.reads``), for the caller's cache.
    reads: tuple[tuple[str, str], ...]


class KernelFindings:
    """Per file: (rule code, kernel key) -> the findings of the file's last check."""

    def __init__(self) -> None:
        self._files: dict[str, dict[tuple[str, Hashable], Entry]] = {}

    def forget(self) -> None:
        self._files.clear()

    def for_check(self, path: str, source: str, kernels: list["Kernel"], options: Hashable) -> "FileCheck":
        """The reuse of one check of ``path``: what it does not ask for is dropped after it."""
        previous = self._files.pop(path, {})
        current: dict[tuple[str, Hashable], Entry] = {}
        self._files[path] = current
        while len(self._files) > MAX_FILES:
            del self._files[next(iter(self._files))]
        return FileCheck(previous, current, KernelKeys(source, kernels, options))


class FileCheck:
    def __init__(self, previous: dict, current: dict, keys: "KernelKeys") -> None:
        self._previous = previous
        self._current = current
        self._keys = keys

    def get(self, code: str, kernel: "Kernel") -> Entry | None:
        found = self._previous.get((code, self._keys.of(kernel)))
        if found is None:
            found = self._previous.get((code, self._keys.of(kernel, lines=False)))
        if found is not None:
            self.put(code, kernel, found)
        return found

    def put(self, code: str, kernel: "Kernel", entry: Entry) -> None:
        self._current[code, self._keys.of(kernel)] = entry
        if not entry.findings:
            self._current[code, self._keys.of(kernel, lines=False)] = entry


class KernelKeys:
    """What a kernel's findings may depend on in the file's text (the module docstring)."""

    def __init__(self, source: str, kernels: list["Kernel"], options: Hashable) -> None:
        self._source = source
        self._options = options
        self._kernels = kernels
        self._lines: list[str] = []
        self._segments: list[str | int] = []  # text, or the position of a kernel's body in _bodies
        self._bodies: list[tuple["Kernel", str]] = []
        self._component: dict[int, frozenset[int]] | None = None
        self._keys: dict[tuple[int, bool], Hashable] = {}
        self._ordinal = {id(k.node): i for i, k in enumerate(kernels)}

    def _cut(self) -> None:
        """The file's text cut into host text and kernel bodies (once, on the first key)."""
        lines = self._lines = _LINE.findall(self._source)
        done = 0
        for kernel, (start, end) in sorted(((k, r) for k in self._kernels for r in [_body_lines(k)] if r),
                                           key=lambda item: item[1]):
            if start < done:
                continue  # nested in a body already cut out: stays in that body's text
            body = "".join(lines[start:end])
            if "global" in body or "nonlocal" in body:
                continue
            self._segments.append("".join(lines[done:start]))
            self._segments.append(len(self._bodies))
            self._bodies.append((kernel, body))
            done = end
        self._segments.append("".join(lines[done:]))

    def of(self, kernel: "Kernel", lines: bool = True) -> Hashable:
        """The key of ``kernel``'s findings; without ``lines``, the other kernels' bodies count
        for nothing, not even their number of lines (the key of a kernel without findings)."""
        key = self._keys.get((id(kernel.node), lines))
        if key is None:
            if not self._segments:
                self._cut()
            kept = self._components().get(id(kernel.node), frozenset())
            # the kernel's place too: the kernels of one component share everything else
            place = (kernel.node.lineno, kernel.node.col_offset) if lines else self._ordinal[id(kernel.node)]
            key = self._keys[id(kernel.node), lines] = (self._options, lines, place, tuple(
                segment if isinstance(segment, str)
                else self._bodies[segment][1] if id(self._bodies[segment][0].node) in kept
                else self._bodies[segment][1].count("\n") if lines else None
                for segment in self._segments))
        return key

    def _components(self) -> dict[int, frozenset[int]]:
        """Kernel -> the kernels whose text names it or that its text names, transitively."""
        if self._component is None:
            named: dict[str, list[int]] = {}
            for kernel in self._kernels:
                named.setdefault(kernel.name, []).append(id(kernel.node))
            linked: dict[int, set[int]] = {id(k.node): {id(k.node)} for k in self._kernels}
            for kernel in self._kernels:
                text = "".join(self._lines[kernel.node.lineno - 1:kernel.node.end_lineno])
                for word in named.keys() & set(_WORD.findall(text)):
                    for other in named[word]:
                        linked[id(kernel.node)].add(other)
                        linked[other].add(id(kernel.node))
            self._component = {}
            for start in linked:
                seen, todo = {start}, [start]
                while todo:
                    for neighbour in linked[todo.pop()]:
                        if neighbour not in seen:
                            seen.add(neighbour)
                            todo.append(neighbour)
                self._component[start] = frozenset(seen)
        return self._component


def _body_lines(kernel: "Kernel") -> tuple[int, int] | None:
    """The lines of ``kernel``'s body as 0-based ``[start, end)``, or None when the body shares
    a line with the signature (``def f(x): return x``)."""
    node = kernel.node
    body = node.body
    header = [node.lineno, *(getattr(n, "end_lineno", 0) or 0 for n in ast.iter_child_nodes(node.args))]
    if node.returns is not None:
        header.append(node.returns.end_lineno or 0)
    if not body or body[0].lineno <= max(header) or node.end_lineno is None:
        return None
    return body[0].lineno - 1, node.end_lineno
