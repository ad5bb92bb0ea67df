"""Settings from ``[tool.kernelint]`` in the nearest pyproject.toml, and rule selection."""
from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_KEYS = {"select", "ignore", "extend-select", "per-file-ignores", "exclude", "target-arch"}


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
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None  # the pyproject.toml read, if any

    def overridden(self, **changes) -> "Settings":
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def _configures_kernelint(pyproject: Path) -> bool:
    try:
        return "tool.kernelint" in pyproject.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above ``start`` that has a ``[tool.kernelint]`` table
    (a sub-package's pyproject without one does not hide the project's settings)."""
    start = start.resolve()
    for directory in [start, *start.parents] if start.is_dir() else [*start.parents]:
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and _configures_kernelint(candidate):
            return candidate
    return None


_ARCH = re.compile(r"sm_?(\d+)a?", re.IGNORECASE)


def compute_capability(target_arch) -> int | None:
    """``"sm_90"`` (also ``sm90``, ``sm_90a``) -> 90; None when no target is set."""
    if target_arch is None:
        return None
    match = _ARCH.fullmatch(target_arch) if isinstance(target_arch, str) else None
    if match is None:
        raise ConfigError(f"target-arch must look like 'sm_90', not {target_arch!r}")
    return int(match.group(1))


def _strings(table: dict, key: str, where: Path) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: [tool.kernelint] {key} must be a list of strings")
    return tuple(value)


def load_settings(start: Path) -> Settings:
    """Settings of the nearest pyproject.toml at or above ``start`` (defaults if none)."""
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Settings(root=start.resolve() if start.is_dir() else start.resolve().parent)
    return read_settings(pyproject)


def read_settings(pyproject: Path) -> Settings:
    """Settings of one TOML file's ``[tool.kernelint]``; paths in it are relative to its folder."""
    pyproject = pyproject.resolve()
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read: {error}") from None
    table = data.get("tool", {}).get("kernelint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.kernelint] must be a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{pyproject}: unknown [tool.kernelint] key(s): {', '.join(unknown)}")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{pyproject}: [tool.kernelint] per-file-ignores must be a table")
    target_arch = table.get("target-arch")
    if target_arch is not None and not isinstance(target_arch, str):
        raise ConfigError(f"{pyproject}: [tool.kernelint] target-arch must be a string like 'sm_90'")
    if target_arch is not None:
        try:
            compute_capability(target_arch)
        except ConfigError as error:
            raise ConfigError(f"{pyproject}: [tool.kernelint] {error}") from None
    return Settings(
        select=_strings(table, "select", pyproject) if "select" in table else None,
        ignore=_strings(table, "ignore", pyproject),
        extend_select=_strings(table, "extend-select", pyproject),
        per_file_ignores=tuple(
            (pattern, _strings(per_file, pattern, pyproject)) for pattern in sorted(per_file)
        ),
        exclude=_strings(table, "exclude", pyproject),
        target_arch=target_arch,
        root=pyproject.parent,
        source=pyproject,
    )


def _matches(selector: str, rule, exact_only: bool) -> bool:
    selector = selector.strip()
    if selector.upper() == "ALL":
        return True
    if selector.upper() == rule.code or selector.lower() == rule.name:
        return True
    return not exact_only and selector.upper().startswith("KL") and rule.code.startswith(selector.upper())


def validate_selectors(selectors, rules) -> None:
    for selector in selectors:
        if not any(_matches(selector, rule, exact_only=False) for rule in rules):
            raise ConfigError(f"unknown rule selector {selector!r} (see `kernelint rules`)")


def selected_codes(settings: Settings, rules) -> frozenset[str]:
    """Codes of the rules that run. Off-by-default rules run only when named exactly or via ALL;
    a prefix (``KL2``) selects the default-on rules under it."""
    per_file = (s for _, selectors in settings.per_file_ignores for s in selectors)
    validate_selectors((*(settings.select or ()), *settings.ignore, *settings.extend_select, *per_file), rules)

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
    return frozenset(chosen)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def path_matches(path: Path, root: Path, patterns) -> bool:
    """Glob match against the path relative to the config root, its folders and its tails."""
    parts = _relative(path, root).split("/")
    # The path, any folder above it (a match there covers the whole folder), and any tail.
    candidates = {"/".join(parts[:i]) for i in range(1, len(parts) + 1)}
    candidates |= {"/".join(parts[i:]) for i in range(1, len(parts))} | set(parts)
    return any(fnmatch.fnmatch(c, p.rstrip("/")) for p in patterns for c in candidates)


def codes_for_file(settings: Settings, selected: frozenset[str], path: Path, rules) -> frozenset[str]:
    ignored = set()
    for pattern, selectors in settings.per_file_ignores:
        if path_matches(path, settings.root, [pattern]):
            ignored |= {r.code for r in rules if any(_matches(s, r, exact_only=False) for s in selectors)}
    return selected - ignored if ignored else selected


@lru_cache(maxsize=None)
def _settings_near(directory: Path) -> tuple[Settings, frozenset[str]]:
    from kernelint.rules import all_rules

    settings = load_settings(directory)
    try:
        return settings, selected_codes(settings, all_rules())
    except ConfigError as error:
        raise ConfigError(f"{settings.source}: {error}") from None


def options_for(filename: str):
    """The engine options ``kernelint check`` uses for ``filename`` by default: what the flake8
    and pylint front ends run, so that all three report the same."""
    from kernelint.engine import Options
    from kernelint.rules import all_rules

    path = Path(filename)
    directory = Path.cwd() if filename in ("stdin", "-", "") else path.resolve().parent
    settings, selected = _settings_near(directory)
    if settings.exclude and path_matches(path, settings.root, settings.exclude):
        return Options(frozenset(), settings.target_arch)  # what a directory walk would skip
    return Options(codes_for_file(settings, selected, path, all_rules()), settings.target_arch)


def env_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 8))
