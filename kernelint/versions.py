"""Which Triton, CuTe DSL and cuTile release a file's code targets, and where that came from.

For each DSL the target is, in this order:

1. the configured version: ``--triton-version`` / ``--cutlass-dsl-version`` /
   ``--cuda-tile-version`` on the command line, else ``triton-version`` / ``cutlass-dsl-version``
   / ``cuda-tile-version`` in ``[tool.kernelint]``;
2. what the file's project pins (the project root as ``kernelint.model.project.project_root``
   finds it). The files are read, never run: ``pyproject.toml`` (``[project] dependencies``, then
   ``[project.optional-dependencies]``), ``setup.py`` (``install_requires`` / ``extras_require``
   literals of the ``setup(...)`` call, read with ``ast``), ``setup.cfg``, ``requirements*.txt``
   (the root and a ``requirements/`` folder), ``environment.yml``. The first requirement of the
   DSL's distribution that names a version wins, in that order (main dependencies before extras);
3. the version installed beside kernelint (``importlib.metadata``; the package is never imported);
4. the newest release kernelint knows.

A requirement becomes one version by this rule: an exact pin (``==3.3.1``, ``===3.3.1``) is that
version; ``==3.3.*`` and any range (``>=3.2,<3.4``, ``~=3.2``, ``!=``) is the newest release
kernelint knows that satisfies every clause; when no known release does, the lower bound
(``>=``, ``~=``, ``==X.*``) is taken; a bare name (``triton``) pins nothing.
"""
from __future__ import annotations

import ast
import configparser
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from kernelint.model.dsl import DSLS
from kernelint.model.dsl.versioning import Version, normalized, parse_version, show

if __import__("sys").version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

#: DSL -> (setting key in [tool.kernelint], command-line flag, what messages call it).
SETTINGS = {
    "triton": ("triton-version", "--triton-version", "Triton"),
    "cute": ("cutlass-dsl-version", "--cutlass-dsl-version", "CuTe DSL"),
    "cutile": ("cuda-tile-version", "--cuda-tile-version", "cuTile"),
}
_MAX_PIN_FILE_BYTES = 1_000_000


@dataclass(frozen=True)
class Target:
    """One DSL's target release and how it was chosen (``source`` is shown to users)."""

    dsl: str
    version: Version
    source: str

    @property
    def text(self) -> str:
        return show(self.version)

    def describe(self) -> str:
        """``Triton 3.3.1 (pinned: triton==3.3.1 in requirements.txt)``."""
        return f"{SETTINGS[self.dsl][2]} {self.text} ({self.source})"

    def at_least(self, version: Version) -> bool:
        return normalized(self.version) >= normalized(version)


@dataclass(frozen=True)
class Targets:
    """The target of every DSL for one file; hashable, so it can sit in ``engine.Options``."""

    triton: Target
    cute: Target
    cutile: Target

    def of(self, dsl: str) -> Target:
        return getattr(self, dsl)

    def key(self) -> str:
        """What the cache key needs: each version and its source (findings name both)."""
        return ";".join(f"{t.dsl}={t.text}@{t.source}" for t in (self.triton, self.cute, self.cutile))


# --- requirement strings -------------------------------------------------------------------------

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")
_CLAUSE = re.compile(r"^\s*(===|==|~=|!=|>=|<=|>|<)\s*([0-9][0-9A-Za-z.*+!-]*)\s*$")


def normalize_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def split_requirement(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """``"triton>=3.2,<3.4 ; python_version>'3.8'"`` -> ``("triton", [(">=", "3.2"), ("<", "3.4")])``;
    None for a line that is not a requirement (an option, a URL, an editable path)."""
    text = text.split("#", 1)[0].split(";", 1)[0].strip()
    if not text or text.startswith(("-", ".", "/", "git+", "http:", "https:", "file:")) or "@" in text:
        return None
    match = _NAME.match(text)
    if match is None:
        return None
    rest = match.group(3).strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1]
    clauses = []
    for part in filter(None, (p.strip() for p in rest.split(","))):
        clause = _CLAUSE.match(part)
        if clause is None:
            return None
        clauses.append((clause.group(1), clause.group(2)))
    return normalize_name(match.group(1)), clauses


def _satisfies(version: Version, operator: str, text: str) -> bool:
    if text.endswith(".*"):
        prefix = parse_version(text[:-2]) or ()
        padded = tuple(version) + (0,) * (len(prefix) - len(version))
        inside = padded[:len(prefix)] == tuple(prefix)
        return inside if operator == "==" else (not inside if operator == "!=" else False)
    bound = parse_version(text)
    if bound is None:
        return False
    version = normalized(version)
    if operator in ("==", "==="):
        return version == bound
    if operator == "!=":
        return version != bound
    if operator == ">=":
        return version >= bound
    if operator == "<=":
        return version <= bound
    if operator == ">":
        return version > bound
    if operator == "<":
        return version < bound
    if operator == "~=":  # ~=3.2 is >=3.2,==3.*; ~=3.2.1 is >=3.2.1,==3.2.*
        parts = [int(p) for p in re.findall(r"\d+", text.split("+")[0])]
        prefix = tuple(parts[:-1]) or tuple(parts)
        padded = tuple(version) + (0,) * len(prefix)
        return version >= bound and padded[:len(prefix)] == prefix
    return False


def version_of(clauses: list[tuple[str, str]], releases: tuple[str, ...]) -> tuple[Version, str] | None:
    """The one version a requirement's clauses mean (the module docstring's rule) and how it was
    chosen; None when they pin nothing."""
    for operator, text in clauses:
        if operator in ("==", "===") and not text.endswith(".*"):
            version = parse_version(text)
            return (version, "exact pin") if version is not None else None
    if not clauses:
        return None
    known = [v for v in (parse_version(r) for r in releases) if v is not None]
    allowed = [v for v in known if all(_satisfies(v, op, t) for op, t in clauses)]
    if allowed:
        return max(allowed), "the newest allowed release kernelint knows"
    lower = [parse_version(t.rstrip(".*")) for op, t in clauses if op in (">=", "~=", "==")]
    lower = [v for v in lower if v is not None]
    if lower:
        return max(lower), "its lower bound (no release kernelint knows is allowed)"
    return None


# --- pin files -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pin:
    """One requirement of a project: the distribution, its clauses and where it was written."""

    name: str
    clauses: tuple[tuple[str, str], ...]
    text: str
    where: str


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_PIN_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _pins_from(lines, where: str) -> list[Pin]:
    pins = []
    for line in lines:
        if not isinstance(line, str):
            continue
        parsed = split_requirement(line)
        if parsed is not None:
            pins.append(Pin(parsed[0], tuple(parsed[1]), line.split("#", 1)[0].split(";", 1)[0].strip(), where))
    return pins


def _pyproject(root: Path) -> tuple[list[Pin], list[Pin]]:
    text = _read(root / "pyproject.toml")
    if text is None:
        return [], []
    try:
        project = tomllib.loads(text).get("project", {})
    except (tomllib.TOMLDecodeError, AttributeError):
        return [], []
    if not isinstance(project, dict):
        return [], []
    main = _pins_from(project.get("dependencies") or [], "pyproject.toml [project] dependencies")
    extras = []
    optional = project.get("optional-dependencies") or {}
    if isinstance(optional, dict):
        for extra, lines in sorted(optional.items()):
            if isinstance(lines, list):
                extras += _pins_from(lines, f"pyproject.toml [project.optional-dependencies] {extra}")
    return main, extras


def _literal_strings(node: ast.AST, assigned: dict[str, ast.AST]) -> list[str]:
    """The strings of a list/tuple literal (or a name bound to one at module level)."""
    if isinstance(node, ast.Name) and node.id in assigned:
        node = assigned[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _setup_py(root: Path) -> tuple[list[Pin], list[Pin]]:
    text = _read(root / "setup.py")
    if text is None:
        return [], []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return [], []
    assigned = {
        target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
        for target in node.targets if isinstance(target, ast.Name)
    }
    main: list[Pin] = []
    extras: list[Pin] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg == "install_requires":
                main += _pins_from(_literal_strings(keyword.value, assigned), "setup.py install_requires")
            elif keyword.arg == "extras_require":
                value = assigned.get(keyword.value.id, keyword.value) if isinstance(keyword.value, ast.Name) \
                    else keyword.value
                if isinstance(value, ast.Dict):
                    for key, lines in zip(value.keys, value.values):
                        name = key.value if isinstance(key, ast.Constant) else "?"
                        extras += _pins_from(_literal_strings(lines, assigned), f"setup.py extras_require {name}")
    return main, extras


def _setup_cfg(root: Path) -> tuple[list[Pin], list[Pin]]:
    text = _read(root / "setup.cfg")
    if text is None:
        return [], []
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return [], []
    main = _pins_from(parser.get("options", "install_requires", fallback="").splitlines(),
                      "setup.cfg install_requires")
    extras = []
    if parser.has_section("options.extras_require"):
        for extra, lines in parser.items("options.extras_require"):
            extras += _pins_from(lines.splitlines(), f"setup.cfg extras_require {extra}")
    return main, extras


def _requirement_files(root: Path) -> list[Pin]:
    paths = sorted(root.glob("requirements*.txt"), key=lambda p: (p.name != "requirements.txt", p.name))
    folder = root / "requirements"
    if folder.is_dir():
        paths += sorted(folder.glob("*.txt"))
    pins = []
    for path in paths:
        text = _read(path)
        if text is not None:
            pins += _pins_from(text.splitlines(), path.relative_to(root).as_posix())
    return pins


def _environment_yml(root: Path) -> list[Pin]:
    """Conda ``dependencies`` (``- triton=3.1.0``, one ``=`` meaning ``==``) and their ``pip:`` list."""
    pins = []
    for name in ("environment.yml", "environment.yaml"):
        text = _read(root / name)
        if text is None:
            continue
        for line in text.splitlines():
            item = re.match(r"^\s*-\s*([^\s#:][^#]*?)\s*$", line)
            if item is None:
                continue
            entry = re.sub(r"^([A-Za-z0-9._-]+)=(?!=)([0-9])", r"\1==\2", item.group(1).split("::")[-1])
            pins += _pins_from([entry], name)
    return pins


def _names_in(folder: str) -> list[str]:
    """The sorted entry names of ``folder`` (none when it cannot be listed), as ``Path.glob``
    sees them: sorted names are the sorted paths of one folder."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entry.name for entry in entries)
    except OSError:
        return []


def _pin_files(root: Path) -> list[str]:
    """The pin files ``_stamp`` looks at, by name (``os`` calls: this runs for every checked file
    outside a batch, and pathlib's glob made it the largest part of finding a file's targets)."""
    base = os.fspath(root)
    files = [os.path.join(base, name) for name in
             ("pyproject.toml", "setup.py", "setup.cfg", "environment.yml", "environment.yaml")]
    names = _names_in(base) if os.path.isdir(base) else []
    files += [os.path.join(base, n) for n in names if n.startswith("requirements") and n.endswith(".txt")]
    folder = os.path.join(base, "requirements")
    if os.path.isdir(folder):
        files += [os.path.join(folder, n) for n in _names_in(folder) if n.endswith(".txt")]
    return files


def _stamp(root: Path) -> tuple:
    """What the pins depend on: each pin file's name, size and modification time, so an edited
    pin is read again by a long-running process (the language server, a watch loop)."""
    stamp = []
    for path in _pin_files(root):
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            continue
        stamp.append((os.path.basename(path), info.st_size, info.st_mtime_ns))
    return tuple(stamp)


@lru_cache(maxsize=64)
def _project_pins(root: Path, stamp: tuple) -> tuple[Pin, ...]:
    py_main, py_extras = _pyproject(root)
    setup_main, setup_extras = _setup_py(root)
    cfg_main, cfg_extras = _setup_cfg(root)
    return tuple([*py_main, *setup_main, *cfg_main, *_requirement_files(root), *py_extras, *setup_extras,
                  *cfg_extras, *_environment_yml(root)])


def project_pins(root: Path) -> tuple[Pin, ...]:
    """Every requirement a project writes down, in the order the module docstring gives."""
    return _project_pins(root, _stamp(root))


def pinned(dsl: str, root: Path | None) -> Target | None:
    """The target a project's pins give ``dsl``, or None when it pins no version of it."""
    return _pinned(dsl, project_pins(root)) if root is not None else None


def _pinned(dsl: str, pins: tuple[Pin, ...]) -> Target | None:
    module = DSLS[dsl]
    names = {normalize_name(n) for n in module.DISTRIBUTIONS}
    for pin in pins:
        if pin.name not in names:
            continue
        chosen = version_of(list(pin.clauses), module.RELEASES)
        if chosen is not None:
            version, how = chosen
            detail = "" if how == "exact pin" else f"; {how}"
            return Target(dsl, version, f"pinned: {pin.text} in {pin.where}{detail}")
    return None


@lru_cache(maxsize=8)
def installed(dsl: str) -> Target | None:
    """The version of the DSL's distribution installed beside kernelint (never imported)."""
    for name in DSLS[dsl].DISTRIBUTIONS:
        try:
            version = parse_version(metadata.version(name))
        except (metadata.PackageNotFoundError, ValueError):
            continue
        if version is not None:
            return Target(dsl, version, f"installed: {name} {metadata.version(name)}")
    return None


def newest(dsl: str) -> Target:
    release = DSLS[dsl].RELEASES[-1]
    return Target(dsl, parse_version(release), "the newest release kernelint knows")


def newest_targets() -> Targets:
    return Targets(*(newest(dsl) for dsl in ("triton", "cute", "cutile")))


def configured_target(dsl: str, text: str, where: str) -> Target:
    """A version given in the settings; ``where`` names the flag or the configuration file."""
    version = parse_version(text)
    if version is None:
        raise ValueError(f"{SETTINGS[dsl][0]} must be a version such as \"3.4.0\", not {text!r}")
    return Target(dsl, version, f"set by {where}")


def _project_root(path: str | os.PathLike) -> Path | None:
    from kernelint.model.project import project_root

    return project_root(path)


@lru_cache(maxsize=4096)
def _root_of(directory: Path) -> Path | None:
    return _project_root(directory / "__file__.py")


@lru_cache(maxsize=1024)
def _resolved(root: Path | None, configured: tuple[tuple[str, str, str], ...], stamp: tuple) -> Targets:
    """The targets of every file whose project root is ``root`` (the answer depends on the
    folder only through its root); ``stamp`` is the root's ``_stamp`` (``()`` without one)."""
    given = {dsl: configured_target(dsl, text, where) for dsl, text, where in configured}
    pins = None  # read only when a DSL is not fixed by the settings
    chosen = []
    for dsl in ("triton", "cute", "cutile"):
        target = given.get(dsl)
        if target is None and root is not None:
            if pins is None:
                pins = _project_pins(root, stamp)
            target = _pinned(dsl, pins)
        chosen.append(target or installed(dsl) or newest(dsl))
    return Targets(*chosen)


def targets_for(path: str | os.PathLike, configured: tuple[tuple[str, str, str], ...] = ()) -> Targets:
    """The targets of the file at ``path``; ``configured`` holds ``(dsl, version, where)`` for each
    DSL the settings fix (``Settings.target_versions``)."""
    root = _root_of(Path(os.path.dirname(os.path.abspath(path))))
    return _resolved(root, tuple(configured), _stamp(root) if root is not None else ())


def targets_for_settings(path: str | os.PathLike, settings) -> Targets:
    """The targets of ``path`` under ``settings`` (``config.Settings``): what they fix, else the
    project's pins, else installed, else the newest known. What every front end passes to the
    engine in ``Options.target_versions``."""
    return targets_for(path, getattr(settings, "target_versions", ()))


class TargetsOfBatch:
    """``targets_for_settings`` for the files of one batch run (``runner.check_groups``): one
    answer per folder and settings, and each project's pin files looked at once, not once per
    file. A pin edited during the batch is seen by the next batch; a long-running process makes
    a new one per run, as ``targets_for`` re-reads an edited pin at every call."""

    def __init__(self) -> None:
        self._roots: dict[str, Path | None] = {}
        self._stamps: dict[Path, tuple] = {}
        self._targets: dict[tuple, Targets] = {}

    def __call__(self, path: str | os.PathLike, settings) -> Targets:
        path = os.fspath(path)
        head, name = os.path.split(path)
        configured = tuple(getattr(settings, "target_versions", ()))
        if name in ("", ".", ".."):  # the folder is not the head's: no shortcut
            return self._of_folder(os.path.dirname(os.path.abspath(path)), configured)
        known = self._targets.get((head, configured))
        if known is None:  # files under one head share one absolute folder
            known = self._targets[(head, configured)] = self._of_folder(
                os.path.dirname(os.path.abspath(path)), configured)
        return known

    def _of_folder(self, folder: str, configured: tuple) -> Targets:
        if folder not in self._roots:
            self._roots[folder] = _root_of(Path(folder))
        root = self._roots[folder]
        stamp = ()
        if root is not None:
            if root not in self._stamps:
                self._stamps[root] = _stamp(root)
            stamp = self._stamps[root]
        return _resolved(root, configured, stamp)
