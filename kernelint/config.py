"""Settings from the nearest configuration file, and rule selection.

A configuration is ``[tool.kernelint]`` in a ``pyproject.toml`` or the top level of a
``kernelint.toml``. Discovery walks up from the checked file and stops at the first
``kernelint.toml``, or the first ``pyproject.toml`` whose parsed TOML has a ``tool.kernelint``
table (however it is spelled: a table header, dotted keys or an inline table); a sub-package's
pyproject without one does not hide the project's settings. ``exclude`` and
``per-file-ignores`` patterns are read with gitignore semantics, relative to the folder of the
file that holds them.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import pathspec

from kernelint import severities
from kernelint.patterns import problem as pattern_problem
from kernelint.targets import TargetError
from kernelint.targets import compute_capability as _parse_target

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONFIG_NAMES = ("kernelint.toml", "pyproject.toml")
#: ``[tool.kernelint]`` keys that fix a DSL's target release (``kernelint.versions``).
VERSION_KEYS = {"triton-version": "triton", "cutlass-dsl-version": "cute", "cuda-tile-version": "cutile"}
_KEYS = ("select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude", "target-arch",
         "docs-url",
         "severity", "output-format")
#: ``output-format``: the text format's shape on a terminal (``kernelint.output.text``).
OUTPUT_FORMATS = ("full", "concise")


class ConfigError(Exception):
    """A configuration value kernelint cannot use; reported as a usage error (exit 2)."""


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    target_arch: str | None = None
    #: ``(dsl, version, where)`` for each DSL whose target release the configuration or the command
    #: line fixes; the others follow the project's pins (``kernelint.versions.targets_for``).
    target_versions: tuple[tuple[str, str, str], ...] = ()
    #: ``[tool.kernelint.severity]``: (rule selector, severity) pairs (``kernelint.severities``).
    severity: tuple = ()
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None  # the configuration file read, if any
    #: ``docs-url``: where the team publishes the rule docs, ``{code}`` standing for the rule's
    #: code (``kernelint.docs.rule_url``); None: findings carry no address, the docs travel with the tool.
    docs_url: str | None = None
    #: ``output-format``: ``full`` or ``concise`` text wherever it is written; None: full on a
    #: terminal, concise in a pipe or a file (``--output-format`` overrides it).
    output_format: str | None = None

    def overridden(self, **changes) -> "Settings":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def where(self) -> str:
        """How errors name this configuration."""
        return f"{self.source}: " if self.source else ""


def compute_capability(target_arch) -> int | None:
    """``"sm_90"`` -> 90 (None when unset); a malformed value is a ConfigError."""
    try:
        return _parse_target(target_arch)
    except TargetError as error:
        raise ConfigError(str(error)) from None


@lru_cache(maxsize=256)
def _parsed(path: Path, stamp: tuple[int, int]) -> dict | None:
    """The parsed file; None for a pyproject.toml whose text never says ``kernelint`` (it
    cannot configure kernelint, so it is not parsed, and a broken one elsewhere in a tree is
    not kernelint's business)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        if path.name == "pyproject.toml" and b"kernelint" not in path.read_bytes():
            return None
        raise ConfigError(f"{path}: cannot read: not UTF-8 ({error.reason})") from None
    if path.name == "pyproject.toml" and "kernelint" not in text:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: cannot read: invalid TOML: {error}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise ConfigError(f"{path}: cannot read: values nested too deeply for Python's TOML reader") from None


def _toml(path: Path) -> dict | None:
    """The parsed file, cached while its size and modification time stay the same."""
    try:
        info = path.stat()
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    return _parsed(path, (info.st_mtime_ns, info.st_size))


def _table(path: Path) -> dict | None:
    """The kernelint table of a configuration file: its ``tool.kernelint`` table if it has one;
    else, for any file but a pyproject.toml (kernelint.toml, a --config file), its top level;
    None for a pyproject.toml without one."""
    data = _toml(path)
    if data is None:
        return None
    tool = data.get("tool")
    if isinstance(tool, dict) and "kernelint" in tool:
        table = tool["kernelint"]
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: tool.kernelint must be a table")
        return table
    return None if path.name == "pyproject.toml" else data


def find_config(start: Path) -> Path | None:
    """The nearest configuration file at or above ``start`` (a file or a folder)."""
    start = start.resolve()
    for directory in [start, *start.parents] if start.is_dir() else [*start.parents]:
        found = _config_in(directory)
        if found is not None:
            return found
    return None


def _config_in(directory: Path) -> Path | None:
    """The configuration file of ``directory`` itself (the first of ``CONFIG_NAMES`` that holds
    kernelint's table), or None."""
    for name in CONFIG_NAMES:
        candidate = directory / name
        if candidate.is_file() and _table(candidate) is not None:
            return candidate
    return None


find_pyproject = find_config  # the name the cache and benchmarks use


class NearestConfigs:
    """``find_config`` for the resolved folders of one run's files, the climb shared: a folder
    without a configuration file has its parent's answer, so each folder is looked at once (930
    folders of the corpus took 0.08 CPU s, one climb to ``/`` each)."""

    def __init__(self) -> None:
        self._known: dict[Path, Path | None] = {}

    def __call__(self, folder: Path) -> Path | None:
        """What ``find_config(folder)`` gives for ``folder``, a resolved existing folder."""
        if folder in self._known:
            return self._known[folder]
        found = _config_in(folder)
        if found is None and folder.parent != folder:
            found = self(folder.parent)
        self._known[folder] = found
        return found


def _strings(table: dict, key: str, where: Path) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        example = f'{key} = ["{value}"]' if isinstance(value, str) else f'{key} = ["..."]'
        raise ConfigError(f"{where}: {key} must be a list of strings, e.g. {example}")
    return tuple(value)


def _patterns(values: tuple[str, ...], key: str, where: Path) -> tuple[str, ...]:
    """``values`` if every pattern is safe to match with (``kernelint.patterns``)."""
    for value in values:
        why = pattern_problem(value)
        if why:
            shown = value if len(value) <= 60 else value[:57] + "..."
            raise ConfigError(f"{where}: {key} pattern {shown!r} refused: {why}")
    return values


def _docs_url(value, where: Path) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or "{code}" not in value or not value.startswith(("https://", "http://")):
        raise ConfigError(f'{where}: docs-url must be an http(s) address with {{code}} where the rule code goes, '
                          f'e.g. docs-url = "https://docs.example.com/kernelint/{{code}}.html"')
    return value


def _suggest(word: str, choices) -> str:
    from kernelint.suggest import did_you_mean

    return did_you_mean(word, choices)


def load_settings(start: Path) -> Settings:
    """Settings of the nearest configuration at or above ``start`` (defaults if none)."""
    config = find_config(start)
    if config is None:
        start = start.resolve()
        return Settings(root=start if start.is_dir() else start.parent)
    return read_settings(config)


def read_settings(path: Path) -> Settings:
    """Settings of one configuration file; paths in it are relative to its folder."""
    path = path.resolve()
    table = _table(path)
    if table is None:
        raise ConfigError(f"{path}: has no [tool.kernelint] table")
    for key in table:
        if key not in _KEYS and key not in VERSION_KEYS:
            raise ConfigError(f"{path}: unknown key {key!r} in the kernelint settings{_suggest(key, _KEYS)}")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{path}: per-file-ignores must be a table of pattern = [codes]")
    target_arch = table.get("target-arch")
    if target_arch is not None:
        try:
            compute_capability(target_arch)
        except ConfigError as error:
            raise ConfigError(f"{path}: {error}") from None
    try:
        severity = severities.parse_table(table.get("severity", {}), path)
    except severities.SeverityConfigError as error:
        raise ConfigError(str(error)) from None
    target_versions = _target_versions(table, path)
    docs_url = _docs_url(table.get("docs-url"), path)
    output_format = table.get("output-format")
    if output_format is not None and output_format not in OUTPUT_FORMATS:
        raise ConfigError(f"{path}: output-format must be one of {', '.join(repr(f) for f in OUTPUT_FORMATS)}, "
                          f"not {output_format!r}")
    exclude = _patterns(_strings(table, "exclude", path) + _strings(table, "extend-exclude", path),
                        "exclude", path)
    _patterns(tuple(per_file), "per-file-ignores", path)
    select = _strings(table, "select", path) if "select" in table else None
    if select == ():
        raise ConfigError(f"{path}: select = [] selects no rule; leave select out for the defaults")
    return Settings(
        select=select,
        ignore=_strings(table, "ignore", path),
        extend_select=_strings(table, "extend-select", path),
        per_file_ignores=tuple(
            (pattern, _strings(per_file, pattern, path)) for pattern in sorted(per_file)
        ),
        exclude=exclude,
        target_arch=target_arch,
        docs_url=docs_url,
        output_format=output_format,
        target_versions=target_versions,
        severity=severity,
        root=path.parent,
        source=path,
    )


def _target_versions(table: dict, path: Path) -> tuple[tuple[str, str, str], ...]:
    from kernelint.model.dsl.versioning import parse_version

    found = []
    for key, dsl in VERSION_KEYS.items():
        value = table.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or parse_version(value) is None:
            raise ConfigError(f'{path}: {key} must be a version string such as "3.4.0", not {value!r}')
        found.append((dsl, value, f"{key} in {path}"))
    return tuple(found)


def with_target_versions(settings: Settings, given: dict[str, str | None]) -> Settings:
    """``settings`` with the versions of ``given`` (flag -> version; None: not given) replacing
    the configured ones of their DSL."""
    from kernelint.model.dsl.versioning import parse_version
    from kernelint.versions import SETTINGS

    chosen = dict((dsl, (dsl, text, where)) for dsl, text, where in settings.target_versions)
    for dsl, (_, flag, _) in SETTINGS.items():
        text = given.get(flag)
        if text is None:
            continue
        if parse_version(text) is None:
            raise ConfigError(f'{flag} must be a version such as "3.4.0", not {text!r}')
        chosen[dsl] = (dsl, text, flag)
    return replace(settings, target_versions=tuple(chosen[d] for d in sorted(chosen)))


def _matches(selector: str, rule, exact_only: bool) -> bool:
    selector = selector.strip()
    if selector.upper() == "ALL":
        return True
    if selector.upper() == rule.code or selector.lower() == rule.name:
        return True
    return not exact_only and selector.upper().startswith("KL") and rule.code.startswith(selector.upper())


def validate_selectors(selectors, rules, where: str = "") -> None:
    names = [rule.name for rule in rules] + [rule.code for rule in rules]
    for selector in selectors:
        if not selector.strip():
            raise ConfigError(f"{where}empty rule selector")
        if not any(_matches(selector, rule, exact_only=False) for rule in rules):
            raise ConfigError(f"{where}unknown rule selector {selector!r}{_suggest(selector, names)} "
                              "(see `kernelint rules`)")


def selected_codes(settings: Settings, rules) -> frozenset[str]:
    """Codes of the rules that run. Off-by-default rules run only when named exactly or via ALL;
    a prefix (``KL2``) selects the default-on rules under it. Selecting nothing is an error: a
    check that runs no rule would pass whatever the code."""
    per_file = (s for _, selectors in settings.per_file_ignores for s in selectors)
    overridden = (key for key, _ in settings.severity)
    validate_selectors((*(settings.select or ()), *settings.ignore, *settings.extend_select, *per_file, *overridden),
                       rules, settings.where())

    def picked(selectors, rule) -> bool:
        return any(
            _matches(s, rule, exact_only=False) if (rule.default_enabled or s.upper() == "ALL")
            else _matches(s, rule, exact_only=True)
            for s in selectors
        )

    chosen = set()
    for rule in rules:
        on = picked(settings.select, rule) if settings.select is not None else rule.default_enabled
        on = on or picked(settings.extend_select, rule)
        if on and not any(_matches(s, rule, exact_only=False) for s in settings.ignore):
            chosen.add(rule.code)
    if not chosen:
        raise ConfigError(f"{settings.where()}the selection enables no rule "
                          f"(select={list(settings.select or ())}, ignore={list(settings.ignore)})")
    return frozenset(chosen)


def _pattern(raw: str) -> str:
    """``./x`` means ``/x`` (anchored at the config's folder), as a user writing it expects."""
    while raw.startswith("./"):
        raw = "/" + raw[2:].lstrip("/")
    return raw


@lru_cache(maxsize=1024)
def _spec(patterns: tuple[str, ...]) -> pathspec.PathSpec:
    return pathspec.GitIgnoreSpec.from_lines(_pattern(p) for p in patterns)


def relative_to_root(path: Path, root: Path) -> str | None:
    try:
        return Path(os.path.abspath(path)).relative_to(root).as_posix()
    except ValueError:
        try:
            return path.resolve().relative_to(root).as_posix()
        except ValueError:
            return None


def path_matches(path: Path, root: Path, patterns, is_dir: bool = False) -> bool:
    """Whether gitignore-style ``patterns`` (relative to ``root``) match ``path``; a pattern
    matching a folder covers everything in it. A path outside ``root`` matches nothing."""
    relative = relative_to_root(path, root)
    if not relative or relative == ".":
        return False
    return _spec(tuple(patterns)).match_file(relative + ("/" if is_dir else ""))


def is_excluded(settings: Settings, path: Path) -> bool:
    return bool(settings.exclude) and path_matches(path, settings.root, settings.exclude)


def codes_for_file(settings: Settings, selected: frozenset[str], path: Path, rules) -> frozenset[str]:
    ignored = set()
    for pattern, selectors in settings.per_file_ignores:
        if path_matches(path, settings.root, [pattern]):
            ignored |= {r.code for r in rules if any(_matches(s, r, exact_only=False) for s in selectors)}
    return selected - ignored if ignored else selected


def env_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
