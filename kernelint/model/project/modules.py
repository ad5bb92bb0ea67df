"""Other modules of the project, parsed on demand, and the names they bind.

A rule checking one file sometimes needs a fact from another: the kernel a wrapper imports, the
caller that allocates the tensor. Only the modules a question reaches are parsed (never the
whole project), each at most once per process while its bytes stay the same, and never run.

Names resolve to absolute dotted names with the module's own position in the package, so
``from .kernels import _fwd`` in ``pkg/ops/attn.py`` reads ``pkg.ops.kernels._fwd``, and a name
a package ``__init__`` re-exports is followed to the module that defines it.
"""
from __future__ import annotations

import ast
import hashlib
import os
import re
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from kernelint.model.core.names import BLOCK_FIELDS as _BLOCK_FIELDS
from kernelint.model.core.names import attribute_chain
from kernelint.reading import ParseFailure, Unreadable, decode, parse, read_bytes

if TYPE_CHECKING:
    from kernelint.model.context import FileContext

#: Modules larger than this are not parsed for another file's question.
_MAX_BYTES = 1_000_000
#: Source bytes of the parsed modules kept per process (least recently used first out). A parsed
#: module with its file model takes about fifty times its source in memory: 12 MB of source is
#: about 600 MB, and holds the whole of fla (6.8 MB, 661 files) so that no checked file parses
#: its neighbours again (with a 256-module cap, fla parsed 508 modules twice).
_MAX_KEPT_BYTES = 12_000_000
#: Re-export hops followed from a name to its definition.
_MAX_HOPS = 4


@dataclass
class Module:
    """One parsed module of the project."""

    path: Path
    name: str
    is_package: bool
    source: str
    tree: ast.Module
    digest: str
    #: Local name -> absolute dotted name, from every import of the module.
    aliases: dict[str, str] = field(default_factory=dict)
    _context: "FileContext | None" = field(default=None, repr=False, compare=False)

    def context(self, file_context: type["FileContext"]) -> "FileContext":
        """The module's file model (built once; ``file_context`` is the model class, handed in
        by the view so that this layer never imports the file model it serves)."""
        if self._context is None:
            self._context = file_context(str(self.path), self.source, self.tree, ())
        return self._context

    @cached_property
    def top_level(self) -> dict[str, ast.AST]:
        """Names bound by top-level ``def``/``class`` statements and simple assignments."""
        bound: dict[str, ast.AST] = {}
        for statement in self.tree.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound[statement.name] = statement
            elif isinstance(statement, ast.Assign):
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        bound[target.id] = statement
        return bound

    def absolute(self, expr: ast.AST) -> str | None:
        """The absolute dotted name ``expr`` (a name or attribute chain) refers to: an import
        alias expanded, or a top-level name of this module; None for anything else."""
        chain = attribute_chain(expr)
        if chain is None:
            return None
        root, parts = chain
        base = self.aliases.get(root)
        if base is None:
            if root not in self.top_level:
                return None
            base = f"{self.name}.{root}" if self.name else root
        return ".".join([base, *parts])


def absolute_aliases(tree: ast.Module, name: str, is_package: bool) -> dict[str, str]:
    """Local name -> absolute dotted name for every import in ``tree`` (relative ones resolved
    against the module's ``name``)."""
    package = name.split(".") if is_package else name.split(".")[:-1]
    aliases: dict[str, str] = {}
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level - 1 > len(package):
                    continue
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                if alias.name != "*" and module:
                    aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
    return aliases


def _import_statements(tree: ast.Module):
    """Every import statement of ``tree``, found through statement lists only (imports are
    statements: no expression needs visiting)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for name in node._fields:
            if name in _BLOCK_FIELDS:
                stack.extend(getattr(node, name))


_PARSED: "OrderedDict[Path, Module]" = OrderedDict()
_kept_bytes = 0


def forget_models() -> None:
    """Drop the file models of the kept modules (their trees stay: a tree depends only on its
    module's bytes). A model keeps answers that read other modules (the kernels its launches
    reach), so a new run, or a save in the editor, starts them afresh; paths are resolved again."""
    _RESOLVED_FILES.clear()
    _LOOKED_AT.clear()
    for module in _PARSED.values():
        module._context = None


def load(path: Path, name: str) -> Module | None:
    """The parsed module at ``path`` (None when it cannot be read or parsed, or is too large).
    Kept while its bytes are the same."""
    global _kept_bytes
    try:
        if path.stat().st_size > _MAX_BYTES:
            return None
        data = read_bytes(str(path))
    except (OSError, Unreadable):
        return None
    digest = digest_of(data)
    known = _PARSED.get(path)
    if known is not None and known.digest == digest:
        _PARSED.move_to_end(path)
        return known
    source = decode(data)
    try:
        tree = parse(source, str(path))
    except (ParseFailure, RecursionError, MemoryError):
        return None
    is_package = path.name == "__init__.py"
    module = Module(path, name, is_package, source, tree, digest, absolute_aliases(tree, name, is_package))
    if known is not None:
        _kept_bytes -= len(known.source)
    _PARSED[path] = module
    _kept_bytes += len(source)
    while _kept_bytes > _MAX_KEPT_BYTES and len(_PARSED) > 1:
        _, dropped = _PARSED.popitem(last=False)
        _kept_bytes -= len(dropped.source)
    return module


@dataclass(frozen=True)
class TextFacts:
    """What a module's text shows without a parse, each a superset of what its tree holds: a
    question that only needs calls or launches leaves a module unparsed when its text cannot
    hold one."""

    path: Path | None
    digest: str
    words: frozenset[str]
    #: A ``]`` followed by ``(`` (only blanks, line continuations or comments between), which every
    #: call of a subscript (``kernel[grid](...)``) needs.
    calls_a_subscript: bool
    _calls: dict[str, bool] = field(default_factory=dict, repr=False, compare=False)

    def calls_or_renames(self, word: str) -> bool:
        """The text has the identifier ``word`` followed by ``(`` or by ``as`` (only blanks, line
        continuations or comments between): a superset of calling it (``word(``, ``x.word (``)
        and of importing it under another name. Read again from the file for the first question
        about a word its text spells (kept per word); a file no longer the same answers True."""
        if word not in self.words:
            return False
        known = self._calls.get(word)
        if known is None:
            known = self._calls[word] = _calls_or_renames(self.path, self.digest, word)
        return known


def _calls_or_renames(path: Path, digest: str, word: str) -> bool:
    try:
        data = read_bytes(str(path))
    except (OSError, Unreadable):
        return True
    if digest_of(data) != digest:
        return True
    text = decode(data)
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        if (start == 0 or not _is_identifier_part(text[start - 1])) \
                and (end == len(text) or not _is_identifier_part(text[end])) and _CALL_OR_RENAME.match(text, end):
            return True
        start = text.find(word, end)
    return False


def _is_identifier_part(character: str) -> bool:
    return character.isalnum() or character == "_"


_TEXTS: dict[Path, tuple[tuple[int, int], TextFacts]] = {}
_RACY_NS = 2_000_000_000
_MAX_TEXT_FILES = 50_000
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BETWEEN = r"(?:\s|\\|#[^\n]*+)*+"
_SUBSCRIPT_CALL = re.compile(r"\]" + _BETWEEN + r"\(")
_CALL_OR_RENAME = re.compile(_BETWEEN + r"(?:\(|as\b)")
_UNREADABLE = TextFacts(None, "-", frozenset(), False)


def text_facts(path: Path) -> TextFacts:
    """The text facts of a file, kept while its size and modification time stay the same (a
    view asks them for every importer of a module it follows, and every checked file has its
    own view), which are looked at once until ``forget_models`` (a run's start, a save in the
    editor), as the project index is. The digest is what a question that relied on them
    records as read."""
    known = _TEXTS.get(path)
    if known is not None and path in _LOOKED_AT:  # stat once until ``forget_models``
        return known[1]
    try:
        stat = path.stat()
    except OSError:
        return _UNREADABLE
    if known is not None and known[0] == (stat.st_mtime_ns, stat.st_size):
        _LOOKED_AT.add(path)
        return known[1]
    try:
        data = read_bytes(str(path))
    except (OSError, Unreadable):
        return _UNREADABLE
    text = decode(data)
    facts = TextFacts(path, digest_of(data), frozenset(_IDENTIFIER.findall(text)),
                      "](" in text or _SUBSCRIPT_CALL.search(text) is not None)
    if time.time_ns() - stat.st_mtime_ns > _RACY_NS:  # as git does: a file written just now may change within one clock tick
        if len(_TEXTS) >= _MAX_TEXT_FILES:
            _TEXTS.clear()
            _LOOKED_AT.clear()
        _TEXTS[path] = ((stat.st_mtime_ns, stat.st_size), facts)
        _LOOKED_AT.add(path)
    return facts


def digest_of(data: bytes) -> str:
    """The content hash facts record for a file's bytes."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def tree_for(path: str, source: str) -> ast.Module | None:
    """A tree already parsed in this process from exactly ``source`` at ``path`` (by a question
    from another file), or None. The other way round is not kept: a tree the engine parsed and
    offered to later questions outlived the young collection after its file, so when it left
    the offered set it was never freed (the collector is paused during checks; 28 MB of source
    evicted so over the corpus, most of 2.5 GB in one process), and only one offer in six was
    taken."""
    at = resolved(path)
    known = _PARSED.get(at) if at is not None else None
    return known.tree if known is not None and known.source == source else None


def resolved(path: str) -> Path | None:
    """``Path(path).resolve()`` (None for standard input or a path that cannot be resolved),
    kept until ``forget_models``: the engine and each file's view ask it for every checked
    file, and a resolve costs a system call per folder of the path. A relative path is kept
    with the working directory it was resolved from."""
    if not path or path == "-":
        return None
    key = path if os.path.isabs(path) else (os.getcwd(), path)
    known = _RESOLVED_FILES.get(key, _UNRESOLVED)
    if known is _UNRESOLVED:
        try:
            known = Path(path).resolve()
        except (OSError, RuntimeError):
            known = None
        if len(_RESOLVED_FILES) >= _MAX_TEXT_FILES:
            _RESOLVED_FILES.clear()
        _RESOLVED_FILES[key] = known
    return known


_RESOLVED_FILES: dict[object, Path | None] = {}
_UNRESOLVED = object()
#: Files whose kept text facts were checked against their size and time since ``forget_models``.
_LOOKED_AT: set[Path] = set()


def file_digest(path: Path) -> str:
    """The content hash of a file as facts record it ("-" when it cannot be read)."""
    try:
        return digest_of(read_bytes(str(path)))
    except (OSError, Unreadable):
        return "-"


def split_module(dotted: str, known_modules) -> tuple[str, str] | None:
    """``pkg.ops.attn._fwd`` -> (``pkg.ops.attn``, ``_fwd``): the longest prefix that names a
    module of the project, and the rest (which may be empty or dotted)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        if module in known_modules:
            return module, ".".join(parts[cut:])
    return None


def hops() -> int:
    return _MAX_HOPS
