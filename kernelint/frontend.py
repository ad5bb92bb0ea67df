"""What every front end shares: the settings that apply to one file, and one checked file.

The CLI, the flake8 plugin and the pylint plugin all come here, so that a file gets the same
rules (nearest configuration, exclusions, per-file ignores, target) whichever tool runs it.
"""
from __future__ import annotations

import ast
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from kernelint import severities
from kernelint.config import ConfigError, Settings, codes_for_file, is_excluded, load_settings, selected_codes
from kernelint.engine import INTERNAL_ERROR, Options, _tool_finding, check_source
from kernelint.findings import Finding

#: Names front ends give a buffer read from standard input when no file name was passed.
STDIN_NAMES = ("-", "stdin", "<stdin>", "")


@lru_cache(maxsize=None)
def _settings_near(directory: Path) -> tuple[Settings, frozenset[str]]:
    from kernelint.rules import all_rules

    settings = load_settings(directory)
    return settings, selected_codes(settings, all_rules())


def options_for(filename: str, settings: Settings | None = None, force_exclude: bool = True) -> Options:
    """The options ``kernelint check --force-exclude`` uses for ``filename``: its nearest
    configuration's selection less its per-file ignores, nothing when it is excluded. The
    editor plugins run this because an editor names files one at a time, as pre-commit does."""
    from kernelint.rules import all_rules
    from kernelint.versions import targets_for_settings

    path = Path(filename)
    if settings is None:
        directory = Path.cwd() if filename in STDIN_NAMES else path.resolve().parent
        settings, selected = _settings_near(directory)
    else:
        selected = selected_codes(settings, all_rules())
    if force_exclude and filename not in STDIN_NAMES and is_excluded(settings, path):
        return Options(frozenset(), settings.target_arch)
    return Options(codes_for_file(settings, selected, path, all_rules()), settings.target_arch,
                   targets_for_settings(filename if filename not in STDIN_NAMES else Path.cwd() / "-", settings))


def check_with_project_config(path: str, source: str, tree: ast.Module | None = None,
                              noqa_by_caller: bool = False) -> list[Finding]:
    """What the editor front ends (flake8, pylint) run: the rules ``kernelint check`` would run on
    ``path``, with a broken configuration reported as a KL002 finding, not a crash.
    ``noqa_by_caller``: the front end applies ``# noqa`` comments itself (flake8 does)."""
    try:
        options = options_for(path)
        overrides = settings_for(path).severity
    except ConfigError as error:
        return [_tool_finding(path, INTERNAL_ERROR, 1, 1, f"kernelint configuration error: {error}")]
    if noqa_by_caller:
        options = replace(options, noqa_by_caller=True)
    return severities.apply(check_source(path, source, options, tree=tree), overrides)


def settings_for(filename: str) -> Settings:
    """The settings of the configuration nearest ``filename`` (cached per folder)."""
    directory = Path.cwd() if filename in STDIN_NAMES else Path(filename).resolve().parent
    return _settings_near(directory)[0]
