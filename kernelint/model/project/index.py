"""The project index: the modules of one project, their imports both ways, and which of them
call ``triton.set_allocator``. Built by a line scan (no parse), once per process and project,
and rebuilt when a file of the project is added, removed or changed.

Kernelint checks one file at a time, but some mistakes are only mistakes for the program as a
whole. ``triton.set_allocator(...)`` is the example: kernels that build tensor descriptors need
it to have run before they launch, and real projects call it in the launching module, in a
package utility that module imports (fla sets it in ``fla/utils/_device.py`` at import time),
or in the program that imports the kernels.

The *project* of a file is the nearest directory above it holding ``pyproject.toml``,
``setup.py``, ``setup.cfg`` or ``.git``. Its Python files are read once per process (a cached
index of each module's imports, found by a line scan, and whether it calls ``set_allocator``).
A file *runs with* an allocator when ``set_allocator`` is called in a module that executes
whenever the file's kernels can run: the file itself, what it imports (transitively, with the
``__init__.py`` of every package on the way), the modules that import it (transitively), and what
those import. Separate scripts that share a folder but never import each other do not count for
each other. The CLI and the editor plugins give every file its path, so they agree.

The index is the cheap first layer of the program model: it says which modules can matter to a
file (who imports it, what it imports) so that only those are parsed (``modules.py``).
"""
from __future__ import annotations

import os
import pickle
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from kernelint.reading import Unreadable, read_bytes
from kernelint.model.project.modules import forget_models

_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
_INSTALL_DIRS = frozenset({"site-packages", "dist-packages"})
_SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".tox", ".nox", ".venv", "venv", "env", "node_modules", "build", "dist",
    "__pycache__", "site-packages", ".mypy_cache", ".pytest_cache",
})
#: Files larger than this are not indexed (generated tables, vendored bundles).
_MAX_BYTES = 2_000_000
#: Projects with more Python files than this are not indexed: the answer would come too late.
_MAX_FILES = 20_000

_IMPORT = re.compile(r"^\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)", re.M)
_FROM = re.compile(r"^\s*from\s+(\.*)([\w.]*)\s+import\s+\(?\s*([\w\s,.*]+)", re.M)
_SET_ALLOCATOR = re.compile(r"\bset_allocator\s*\(")


def project_root(path: str | os.PathLike) -> Path | None:
    """The nearest directory above ``path`` with a project marker, or None. An installed package
    is its own project: the climb stops at the top-level package under ``site-packages`` (else a
    file of torch would index the whole interpreter prefix, 15,000 files in one measured case)."""
    return _root_above(_resolved_folder(Path(path)))


#: Project root per directory of a checked file, until ``look_again`` (every file of a folder
#: asks, and the climb stats each marker at each level).
_ROOTS: dict[Path, Path | None] = {}
class ResolvedFolders:
    """``Path(path).resolve().parent``, one ``resolve`` per folder: a file that is no symbolic
    link (or is not there: ``resolve`` keeps a missing name) is in the resolved folder of its
    folder, so only links and the names ``.``/``..`` pay a full resolve. A run asks this for
    every file three times (grouping by configuration, target versions, project roots), and
    resolving each of the corpus's 6,092 files took 0.13 CPU s. A relative folder is known
    together with the working directory it was resolved from."""

    def __init__(self) -> None:
        self._known: dict[object, Path] = {}

    def __call__(self, path: str | os.PathLike) -> Path:
        path = os.fspath(path)
        head, name = os.path.split(path)
        try:
            plain = name not in ("", ".", "..") and not stat.S_ISLNK(os.lstat(path).st_mode)
        except FileNotFoundError:
            plain = True
        except (OSError, ValueError):
            plain = False
        if not plain:
            return Path(path).resolve().parent
        key = head if os.path.isabs(head) else (os.getcwd(), head)
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = Path(path).parent.resolve()
        return known


#: The folders ``project_root`` was asked about, until ``look_again``.
_resolved_folder = ResolvedFolders()


def _root_above(here: Path) -> Path | None:
    """The climb of ``project_root``, remembered in ``_ROOTS`` for every folder on the way: the
    folders of one project share their upper levels, so each folder's markers are looked at once."""
    if here in _ROOTS:
        return _ROOTS[here]
    parent = here.parent
    if here.name in _INSTALL_DIRS:
        found = None
    elif any((here / marker).exists() for marker in _MARKERS):
        found = here
    elif parent == here:
        found = None
    elif parent.name in _INSTALL_DIRS:
        found = here  # the top-level package of an installed distribution
    else:
        found = _root_above(parent)
    _ROOTS[here] = found
    return found


@dataclass
class _Module:
    path: Path
    name: str
    imports: set[str] = field(default_factory=set)
    sets_allocator: bool = False
    #: ``_import_words``: every name its imports can bind is among them (None: not known).
    import_words: frozenset[str] | None = None


class _Index:
    """Modules of one project: dotted name -> module, import edges both ways."""

    def __init__(self, root: Path, files: list[tuple[Path, os.stat_result]] | None = None):
        """``files``: ``_stat_files(root)`` when the caller has it (``index_of`` stats every file
        for the signature anyway)."""
        self.root = root
        self.by_path: dict[Path, _Module] = {}
        self.by_name: dict[str, _Module] = {}
        for path, info in _stat_files(root) if files is None else files:
            name = _module_name(root, path)
            module = _Module(path, name)
            scanned = _scan(path, info)
            if scanned is None:
                continue
            module.sets_allocator, statements, module.import_words = scanned
            module.imports = _imports(statements, name, path.name == "__init__.py")
            self.by_path[path] = module
            self.by_name.setdefault(name, module)
        self.importers: dict[str, set[str]] = {}
        for module in self.by_path.values():
            for target in self._resolved(module):
                self.importers.setdefault(target.name, set()).add(module.name)

    def _resolved(self, module: _Module) -> list[_Module]:
        found = []
        for name in module.imports:
            target = self.by_name.get(name)
            if target is None and "." in name:
                target = self.by_name.get(name.rsplit(".", 1)[0])  # from pkg.mod import function
            if target is not None and target is not module:
                found.append(target)
        return found

    def _with_packages(self, module: _Module) -> list[_Module]:
        """The ``__init__.py`` modules that run before ``module``: one per enclosing package."""
        parts = module.name.split(".")
        packages = [self.by_name.get(".".join(parts[:i])) for i in range(1, len(parts))]
        return [p for p in packages if p is not None and p.path.name == "__init__.py"]

    def scope(self, path: Path) -> list[_Module]:
        start = self.by_path.get(path)
        if start is None:
            return []
        upward = {start.name}
        stack = [start.name]
        while stack:
            for importer in self.importers.get(stack.pop(), ()):
                if importer not in upward:
                    upward.add(importer)
                    stack.append(importer)
        seen: dict[str, _Module] = {}
        pending = [self.by_name[name] for name in upward if name in self.by_name]
        while pending:
            module = pending.pop()
            if module.name in seen:
                continue
            seen[module.name] = module
            pending.extend(self._resolved(module))
            pending.extend(self._with_packages(module))
        return list(seen.values())


#: What ``_scan`` read of each file, until ``look_again`` or the end of ``prepare``: nested projects (flash-attention and
#: its ``flash_attn``, cutlass and its ``python/CuTeDSL``) index the same files (797 of the
#: corpus's 6,824 indexed modules).
_SCANS: dict[tuple[Path, int, int], tuple[bool, list[str], frozenset[str] | None]] = {}


def _scan(path: Path, info: os.stat_result) -> tuple[bool, list[str], frozenset[str] | None] | None:
    """(calls ``set_allocator``, import statements, import words) of the file at ``path``, which
    do not depend on the project it is indexed in; None when it is too large or unreadable."""
    key = (path, info.st_mtime_ns, info.st_size)
    known = _SCANS.get(key)
    if known is not None:
        return known
    if info.st_size > _MAX_BYTES:
        return None
    try:
        text = read_bytes(str(path)).decode("utf-8", errors="replace")  # a FIFO would block
    except (OSError, Unreadable):
        return None
    statements = _import_statements(text)
    known = _SCANS[key] = ("set_allocator" in text and _SET_ALLOCATOR.search(_code_only(text)) is not None,
                           statements, _import_words(text, statements))
    return known


def _python_files(root: Path):
    count = 0
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in _SKIPPED_DIRS and not d.startswith(".")]
        for name in files:
            if name.endswith(".py"):
                count += 1
                if count > _MAX_FILES:
                    return
                yield Path(directory) / name


def _stat_files(root: Path) -> list[tuple[Path, os.stat_result]]:
    """Every indexed file with its ``stat`` (a file that cannot be stat-ed is left out)."""
    found = []
    for path in _python_files(root):
        try:
            found.append((path, os.stat(path)))
        except OSError:
            continue
    return found


def _module_name(root: Path, path: Path) -> str:
    """Dotted name under the root, with a ``src/`` layout's ``src`` dropped. Cut from the path's
    text (``relative_to`` and ``with_suffix`` cost more than reading the file's imports)."""
    below = str(root) if str(root).endswith("/") else f"{root}/"
    text = str(path)
    if text.startswith(below) and text.endswith(".py"):
        parts = text[len(below):].split("/")
        if len(parts[-1]) > 3:  # ".py" alone has no suffix for pathlib
            parts[-1] = parts[-1][:-3]
    else:
        parts = list(path.relative_to(root).with_suffix("").parts)
    if parts and parts[0] == "src":
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _code_only(text: str) -> str:
    """The text without comment lines, so a commented-out call does not count."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


#: What ends a line for ``str.splitlines`` besides ``\n`` (``\r\n`` is one end).
_OTHER_BREAK = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_AFTER_LAST_BREAK = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]([^\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]*)\\Z")


def _line_end(text: str, start: int) -> int:
    """Where the line holding ``start`` ends, as ``splitlines`` cuts lines."""
    end = text.find("\n", start)
    if end < 0:
        end = len(text)
    other = _OTHER_BREAK.search(text, start, end)
    return other.start() if other is not None else end


def _opens_line(text: str, at: int) -> bool:
    """Only whitespace stands between the start of ``at``'s line (as ``splitlines`` cuts lines)
    and ``at``: the line, stripped, starts there."""
    before = text[text.rfind("\n", 0, at) + 1:at]
    if not before or before.isspace():
        return True
    if before.isprintable():  # no line break in it (each is unprintable): words stand before ``at``
        return False
    last = _AFTER_LAST_BREAK.search(before)
    return last is not None and (not last.group(1) or last.group(1).isspace())


def _import_statements(text: str) -> list[str]:
    """The import statements of ``text``, one string each (a parenthesised or backslashed name
    list joined onto one line): the patterns below then scan a few hundred bytes per statement,
    not the whole module (scanning whole texts was most of the time it took to index
    flashinfer's 1,487 files).

    A statement is a line that starts, after whitespace, with ``import `` or ``from ``; when it
    opens a parenthesis it does not close, the lines up to the next one holding ``)`` are joined
    onto it, comments cut (a line left open to the end is no statement, and nothing after it is).
    The words are found with ``str.find`` rather than by going through every line in Python
    (which was 0.45 of the 1 CPU second the corpus's 29 projects took to index)."""
    statements: list[str] = []
    done = 0  # the end of the last statement: words before it are inside one
    next_import = text.find("import ")
    next_from = text.find("from ")
    while next_import >= 0 or next_from >= 0:
        if next_from < 0 or 0 <= next_import < next_from:
            at = next_import
            next_import = text.find("import ", at + 1)
        else:
            at = next_from
            next_from = text.find("from ", at + 1)
        if at < done or not _opens_line(text, at):
            continue
        end = _line_end(text, at)
        statement = text[at:end]
        if "(" in statement and ")" not in statement:
            closing = text.find(")", end)
            if closing < 0:
                return statements
            done = _line_end(text, closing)
            joined = text[end:done].splitlines()[1:]  # [0] is the empty text before the line break
            statement = " ".join([statement.split("#", 1)[0], *(line.split("#", 1)[0] for line in joined)])
        else:
            done = end
        statements.append(statement)
        if 0 <= next_import < done:
            next_import = text.find("import ", done)
        if 0 <= next_from < done:
            next_from = text.find("from ", done)
    return statements


_WORD = re.compile(r"[^\W\d]\w*")


def _import_words(text: str, statements: list[str]) -> frozenset[str] | None:
    """The words of a module's import statements: every name an import binds in it is one, so
    a name that is not is no re-export there, and the module need not be parsed to say so.
    None when the line scan may have missed or cut an import: the text holds the word
    ``import`` more often than the statements found (``x = 1; import y``, ``if c: import z``),
    or a statement goes on after a backslash or was cut inside its parentheses."""
    if text.count("import") != sum(statement.count("import") for statement in statements):
        return None
    for statement in statements:
        end = statement.split("#", 1)[0].rstrip()
        if end.endswith("\\") or ("(" in end and not end.endswith(")")):
            return None  # cut short: the scan stops a name list at a comment holding ")"
    return frozenset(word for statement in statements for word in _WORD.findall(statement))


def _imports(statements: list[str], name: str, is_package: bool) -> set[str]:
    """Dotted names a module imports (relative imports resolved against ``name``), from its
    import statements (``_import_statements``)."""
    found: set[str] = set()
    package = name.split(".") if is_package else name.split(".")[:-1]
    for statement in statements:
        match = _IMPORT.match(statement)
        if match is not None:
            for part in match.group(1).split(","):
                found.add(part.split(" as ")[0].strip())
            continue
        match = _FROM.match(statement)
        if match is None:
            continue
        dots, module, names = match.group(1), match.group(2), match.group(3)
        if dots:
            base = package[: len(package) - (len(dots) - 1)] if len(dots) - 1 <= len(package) else []
            module = ".".join([*base, module] if module else base)
        if not module:
            continue
        found.add(module)
        for imported in names.split(","):
            imported = imported.strip().split(" as ")[0].strip()
            if imported and imported != "*" and imported.isidentifier():
                found.add(f"{module}.{imported}")
    return found


_INDEXES: dict[Path, tuple[tuple, bool, _Index]] = {}


def _signature(files: list[tuple[Path, os.stat_result]]) -> tuple:
    """What the index was built from: every indexed file's path, size and mtime (a stat per
    file, about 3 ms per thousand), from ``_stat_files``."""
    return tuple((str(path), info.st_size, info.st_mtime_ns) for path, info in files)


#: How many indexes stay; ``prepare`` raises it to the number of projects of the run, so that
#: every index it built is still there for the workers (with 8, the corpus's 29 projects had
#: 18 indexes built again in the two workers of ``-j2``).
_KEPT = 8
_kept = _KEPT


def prepare(paths, split: bool = False) -> None:
    """Index the projects of ``paths`` now, in this process: worker processes forked after it
    inherit the indexes instead of each building its own. One ``project_root`` per directory.
    With ``split`` (a parallel run, two or more CPUs), a forked helper builds about half of the
    projects' indexes at the same time and hands them over (``_built_by_helper``): each index
    is still built once and shared, and the parent's serial start is shorter."""
    roots: dict[Path, int] = {}  # root -> checked files under it: what its index costs, roughly
    root_of: dict[str, Path | None] = {}
    for path in paths:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in root_of:
            root_of[directory] = project_root(path)
        root = root_of[directory]
        if root is not None:
            roots[root] = roots.get(root, 0) + 1
    global _kept
    _kept = max(_KEPT, len(roots))
    helper_roots = _helper_share(roots) if split and len(roots) > 1 and _can_fork() else []
    helper = _built_by_helper(helper_roots) if helper_roots else None
    for root in roots:
        if root not in helper_roots:
            index_of(root)
    handed = helper() if helper is not None else {}
    for root in helper_roots:
        if root in handed:
            _INDEXES[root] = handed[root]
        else:
            index_of(root)  # the helper failed: built here, as without it
    _SCANS.clear()  # every project of the run is indexed: what the nested ones shared is done


def _can_fork() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def _helper_share(roots: dict[Path, int]) -> list[Path]:
    """The projects a helper indexes: about half of the weight, largest first, so neither
    process waits long for the other. A project's index reads the projects nested in it too
    (cutlass holds ``python/CuTeDSL``), so its weight counts their files as well."""
    weights = {root: sum(count for other, count in roots.items() if other == root or root in other.parents)
               for root in roots}
    share: list[Path] = []
    helper = own = 0
    for root, weight in sorted(weights.items(), key=lambda item: (-item[1], str(item[0]))):
        if helper < own:
            share.append(root)
            helper += weight
        else:
            own += weight
    return share


def _built_by_helper(roots: list[Path]):
    """Fork a process that indexes ``roots`` and pickles the indexes into a pipe; return a
    function that reads them (root -> ``_INDEXES`` entry), or None when no process can be
    forked. A helper that fails or dies hands over nothing, and the caller builds those."""
    try:
        readable, writable = os.pipe()
    except OSError:
        return None
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        os.close(readable)
        os.close(writable)
        return None
    if pid == 0:  # the helper: build, hand over, and leave without running the parent's exit code
        code = 1
        try:
            os.close(readable)
            for root in roots:
                if os.getppid() != parent:
                    break  # the run was stopped: nobody is left to hand the indexes to
                index_of(root)
            data = pickle.dumps({root: _INDEXES[root] for root in roots}, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(writable, "wb") as pipe:
                pipe.write(data)
            code = 0
        except BaseException:  # noqa: B036 - nothing may escape into the parent's code
            pass
        finally:
            os._exit(code)
    os.close(writable)

    def receive() -> dict[Path, tuple]:
        try:
            with os.fdopen(readable, "rb") as pipe:
                data = pipe.read()
            return pickle.loads(data) if data else {}
        except Exception:  # a helper killed mid-write leaves a cut pickle
            return {}
        finally:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass

    return receive


def look_again() -> None:
    """The next question re-reads the project's file list: a run starts, or the language server
    saw a save. Between two calls an index is used as it is, so a long batch run stats the
    project once."""
    global _resolved_folder
    _ROOTS.clear()
    _SCANS.clear()
    _resolved_folder = ResolvedFolders()
    forget_models()
    for root, (signature, _, index) in list(_INDEXES.items()):
        _INDEXES[root] = (signature, True, index)


def index_of(root: Path) -> _Index:
    """The index of the project at ``root``; after ``look_again``, rebuilt if its files changed."""
    known = _INDEXES.get(root)
    if known is not None and not known[1]:
        return known[2]
    files = _stat_files(root)
    signature = _signature(files)
    if known is not None and known[0] == signature:
        _INDEXES[root] = (signature, False, known[2])
        return known[2]
    index = _Index(root, files)
    while len(_INDEXES) >= _kept:
        _INDEXES.pop(next(iter(_INDEXES)))
    _INDEXES[root] = (signature, False, index)
    return index


def scope_names(path: str | os.PathLike) -> list[str]:
    """The dotted names of the modules that run whenever the file at ``path`` does (sorted;
    empty when the file belongs to no project)."""
    root = project_root(path)
    if root is None:
        return []
    return sorted(module.name for module in index_of(root).scope(Path(path).resolve()))


def runs_with_allocator(path: str | os.PathLike) -> bool:
    """Some module that runs whenever the file at ``path`` does calls ``set_allocator``; False
    when none does or the file belongs to no project (then only the file itself counts)."""
    root = project_root(path)
    if root is None:
        return False
    index = index_of(root)
    return any(module.sets_allocator for module in index.scope(Path(path).resolve()))
