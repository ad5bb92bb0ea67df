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
- the facts from other files the file's last check read (``ProjectView.reads``: the other
  modules' bytes, their importers, the allocator scope). After ``index.look_again`` (a save, a
  file opened, a watched file) a file keeps its findings only if every one of them still has
  its value (``facts.current``, as the on-disk cache asks); otherwise all of its kernels run
  again. Saving the edited file itself changes none of them: its own text is the buffer's.

A body is never cut out of its unit when it could bind a module name (``global``,
``nonlocal``) or shares a line with its signature. What a rule's ``check_kernel`` reads must
stay within that: the kernel, its component, and the host code that reaches them by name.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
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
    #: Every fact from other files the check that found them read (``ProjectView.reads``),
    #: filled when it ends: the view answers each question once, so which kernel or rule asked
    #: first is not known, and an answer is taken to depend on all of them.
    reads: dict[str, str]


class KernelFindings:
    """Per file: (rule code, kernel key) -> the findings of the file's last check."""

    def __init__(self) -> None:
        self._files: dict[str, _Kept] = {}
        #: files whose facts from other files must be asked again before their findings serve
        self._questioned: set[str] = set()

    def look_again(self) -> None:
        """Other files may have changed on disk: each file's findings serve again only once the
        facts its last check read from them are found unchanged (at its next check)."""
        self._questioned.update(self._files)

    def settle(self) -> None:
        """Key what the last checks found (the server calls this while it waits for input: on a
        file checked for the first time, the keys are about 9 of mamba's 150 ms)."""
        for kept in self._files.values():
            kept.settle()

    def for_check(self, path: str, source: str, tree: ast.Module, kernels: list["Kernel"],
                  options: Hashable) -> "FileCheck":
        """The reuse of one check of ``path``: what it does not ask for is dropped after it."""
        kept = self._files.pop(path, None) or _Kept(None, {}, {})
        kept.settle()
        previous = kept.findings
        if path in self._questioned:
            self._questioned.discard(path)
            if not _facts_hold(kept.reads):
                previous = {}
        keys = KernelKeys(source, tree, kernels, options, kept.facts)
        current = self._files[path] = _Kept(keys, {}, keys.facts)
        while len(self._files) > MAX_FILES:
            oldest = next(iter(self._files))
            del self._files[oldest]
            self._questioned.discard(oldest)
        return FileCheck(previous, current)


@dataclass
class _Kept:
    """What one file's last check left."""

    #: the keys of that check's text, until its answers are keyed (``settle``)
    keys: "KernelKeys | None"
    #: (rule code, kernel key) -> the findings
    findings: dict[tuple[str, Hashable], Entry]
    #: the host units' facts and the kernels' words, by text
    facts: dict
    #: answers not keyed yet: (rule code, kernel, entry)
    pending: list[tuple[str, "Kernel", Entry]] = field(default_factory=list)
    #: every fact from other files the findings depend on; None until the check has run to its
    #: end (one that failed midway cannot say, and its findings do not outlive a look again)
    reads: dict[str, str] | None = None

    def settle(self) -> None:
        for code, kernel, entry in self.pending:
            self.findings[code, self.keys.of(kernel)] = entry
            if not entry.findings:
                self.findings[code, self.keys.of(kernel, lines=False)] = entry
        self.pending.clear()
        self.keys = None  # the tree it holds can go


def _facts_hold(reads: dict[str, str] | None) -> bool:
    from kernelint.model.project import facts

    return reads is not None and all(facts.current(key) == value for key, value in reads.items())


class FileCheck:
    def __init__(self, previous: dict, current: _Kept) -> None:
        self._previous = previous
        self._current = current
        self._reads: dict[str, str] = {}

    def get(self, code: str, kernel: "Kernel", keep: bool = True) -> Entry | None:
        """The kept answer of ``code`` for ``kernel`` (kept again for the next check unless
        ``keep`` is False: a look before the answer is asked for)."""
        if not self._previous:  # a first check keys nothing while it runs
            return None
        keys = self._current.keys
        found = self._previous.get((code, keys.of(kernel)))
        if found is None:
            found = self._previous.get((code, keys.of(kernel, lines=False)))
        if found is not None and keep:
            self._current.pending.append((code, kernel, found))
        return found

    def components(self) -> list[frozenset[int]]:
        """The file's kernels grouped by its call graph, as places in the checked list."""
        keys = self._current.keys
        place = {id(k.node): i for i, k in enumerate(keys.kernels)}
        return sorted({frozenset(place[n] for n in group) for group in keys.components().values()}, key=min)

    def new(self, code: str, kernel: "Kernel", findings: tuple["Finding", ...]) -> None:
        """Keep the answer this check found for ``kernel`` (keyed at ``settle``)."""
        self._current.pending.append((code, kernel, Entry(findings, self._reads)))

    def done(self, reads: dict[str, str]) -> dict[str, str]:
        """The check ran to its end and read ``reads`` from other files. Returns what its
        findings depend on: those facts and the ones each kept answer's own check read. The
        file's findings serve after a look again only while all of them hold."""
        self._reads.update(reads)
        union: dict[str, str] = {}
        for shared in {id(e.reads): e.reads for _, _, e in self._current.pending}.values():
            union.update(shared)
        union.update(self._reads)
        self._current.reads = union
        return union


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
        self.kernels = kernels
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
            for kernel, (start, end) in sorted(((k, r) for k in self.kernels for r in [_body_lines(k)] if r),
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
            component = self.components().get(id(kernel.node), frozenset())
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

    def components(self) -> dict[int, frozenset[int]]:
        """Kernel -> the kernels whose text names it or that its text names, transitively."""
        if self._component is None:
            self._cut()
            named: dict[str, list[int]] = {}
            for kernel in self.kernels:
                named.setdefault(kernel.name, []).append(id(kernel.node))
            linked: dict[int, set[int]] = {id(k.node): {id(k.node)} for k in self.kernels}
            for kernel in self.kernels:
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
