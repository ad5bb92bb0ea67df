"""Findings of per-kernel rules kept between checks of one file, for the language server:
typing in one kernel of a file of eleven, or in the host function that launches it, need not run
the costly analyses of the other kernels again (on mamba's ``ssd_chunk_scan.py`` KL103 is about
half of a re-check).

A kernel's findings are reused only when nothing they could have read has changed:

- the text of the kernel and of every kernel in its component of the file's call graph (the
  kernels whose text names it or that its text names, transitively: helpers and callers);
- the text of every host unit (a top-level statement, or a member of a top-level class) the
  component's findings may read, character for character: its launches, their callers, the
  sizes, grids, constants and imports they read, found by name (``host_units.py``). Comment and
  blank lines between units, and units nothing of the component reaches, are left out;
- the first line of each of those units, so every line and column a reused finding carries is
  still right. A kernel that had no findings keeps none when only those lines moved (a line
  added in another kernel, or above it): with nothing to place, no position can be stale, and a
  shift of whole lines keeps every node's order;
- the options the file is checked with;
- the other modules' facts, which the process reads from disk and keeps until
  ``index.look_again`` (a save, a watched file): ``forget`` is called with it.

A body is never cut out of its unit when it could bind a module name (``global``,
``nonlocal``) or shares a line with its signature. What a rule's ``check_kernel`` reads must
stay within that: the kernel, its component, and the host code that reaches them by name.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Hashable

from kernelint.host_units import HostUnits, words as host_words

if TYPE_CHECKING:
    from kernelint.findings import Finding
    from kernelint.model.kernels import Kernel

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
        #: path -> (findings by (rule code, kernel key), host units' facts by text)
        self._files: dict[str, tuple[dict[tuple[str, Hashable], Entry], dict]] = {}

    def forget(self) -> None:
        self._files.clear()

    def for_check(self, path: str, source: str, tree: ast.Module, kernels: list["Kernel"],
                  options: Hashable) -> "FileCheck":
        """The reuse of one check of ``path``: what it does not ask for is dropped after it."""
        previous, facts = self._files.pop(path, ({}, {}))
        keys = KernelKeys(source, tree, kernels, options, facts)
        current: dict[tuple[str, Hashable], Entry] = {}
        self._files[path] = (current, keys.facts)
        while len(self._files) > MAX_FILES:
            del self._files[next(iter(self._files))]
        return FileCheck(previous, current, keys)


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

    def __init__(self, source: str, tree: ast.Module, kernels: list["Kernel"], options: Hashable,
                 facts: dict | None = None) -> None:
        """``facts``: what the file's last check read of its host units (``HostUnits.facts``) and
        of its kernels' words; what this check reads is left in ``self.facts``."""
        self._known_facts = facts
        self.facts: dict = {}
        self._source = source
        self._tree = tree
        self._options = options
        self._kernels = kernels
        self._lines: list[str] = []
        self._bodies: dict[int, str] = {}  # id of a kernel's node -> its body's text, cut out
        self._host: HostUnits | None = None
        self._component: dict[int, frozenset[int]] | None = None
        self._read: dict[frozenset[int], tuple[list, set[str]]] = {}
        self._keys: dict[tuple[int, bool], Hashable] = {}
        self._ordinal = {id(k.node): i for i, k in enumerate(kernels)}
        self._by_id = {id(k.node): k for k in kernels}
        self._words: dict[int, set[str]] = {}  # id of a kernel's node -> the words of its text

    def _cut(self) -> HostUnits:
        """The file's text cut into kernel bodies and host units (once, on the first key)."""
        if self._host is None:
            lines = self._lines = _LINE.findall(self._source)
            cut: dict[int, tuple[int, int]] = {}
            done = 0
            for kernel, (start, end) in sorted(((k, r) for k in self._kernels for r in [_body_lines(k)] if r),
                                               key=lambda item: item[1]):
                if start < done:
                    continue  # nested in a body already cut out: stays in that body's text
                body = "".join(lines[start:end])
                if "global" in body or "nonlocal" in body:
                    continue
                cut[id(kernel.node)] = (start, end)
                self._bodies[id(kernel.node)] = body
                done = end
            self._host = HostUnits(self._tree, lines, cut, self._known_facts, self.facts)
        return self._host

    def of(self, kernel: "Kernel", lines: bool = True) -> Hashable:
        """The key of ``kernel``'s findings; without ``lines``, no position counts, and other
        kernels' bodies count for nothing, not even their number of lines (the key of a kernel
        without findings)."""
        key = self._keys.get((id(kernel.node), lines))
        if key is None:
            host = self._cut()
            component = self._components().get(id(kernel.node), frozenset())
            parts: list[object] = []
            read, spelled = self._units_read(component)
            for unit in read:
                if unit.imports is not None:  # the bindings of the names read, where they are
                    parts.append((unit.lines[0] if lines else None,
                                  tuple((n, unit.imports[n]) for n in sorted(unit.imports.keys() & spelled))))
                    continue
                for piece in host.text_pieces(unit):
                    if isinstance(piece, tuple):
                        parts.append(piece if lines else piece[1])
                    elif piece in component:
                        parts.append(self._bodies[piece])
                    else:
                        parts.append(self._bodies[piece].count("\n") if lines else None)
            # the kernel's place too: the kernels of one component share everything else
            place = (kernel.node.lineno, kernel.node.col_offset) if lines else self._ordinal[id(kernel.node)]
            key = self._keys[id(kernel.node), lines] = (self._options, lines, place, tuple(parts))
        return key

    def _units_read(self, component: frozenset[int]) -> tuple[list, set[str]]:
        """The host units the findings of ``component``'s kernels may read, and every word those
        units and the kernels spell (once per component)."""
        found = self._read.get(component)
        if found is None:
            members = [self._by_id[key] for key in component]
            words = set().union(*(self._words[key] for key in component))
            units = self._cut().read_by([k.node for k in members], {k.name for k in members}, words)
            found = self._read[component] = (units, words.union(*(u.words for u in units if u.imports is None)))
        return found

    def _components(self) -> dict[int, frozenset[int]]:
        """Kernel -> the kernels whose text names it or that its text names, transitively."""
        if self._component is None:
            named: dict[str, list[int]] = {}
            for kernel in self._kernels:
                named.setdefault(kernel.name, []).append(id(kernel.node))
            linked: dict[int, set[int]] = {id(k.node): {id(k.node)} for k in self._kernels}
            for kernel in self._kernels:
                text = "".join(self._lines[kernel.node.lineno - 1:kernel.node.end_lineno])
                words = (self._known_facts or {}).get(("kernel", text))
                if words is None:
                    words = host_words(text)
                self.facts["kernel", text] = self._words[id(kernel.node)] = words
                for word in named.keys() & words:
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
