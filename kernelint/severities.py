"""Per-rule severity chosen by a project: ``[tool.kernelint.severity] KL126 = "warning"``.

The override is applied to findings after the engine ran (and after the cache), by every front
end through ``apply``: the CLI's outputs and ``--fail-on``, the flake8 and pylint plugins and
the language server all see the same severity for the same finding.

A key is a rule code, a rule name or a code prefix (``KL2``); when several match a rule, an
exact code or name wins over a prefix, and a longer prefix over a shorter one. A finding at the
rule's own severity takes the configured one; a quieter case of the rule (one of its
``other_severities``, such as an info-level case the evidence does not support more strongly)
keeps its severity unless the configured one is quieter still, so raising a rule never raises
the cases its measurement did not back.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Iterable

from kernelint.findings import SEVERITY_RANK, Finding, Severity

VALUES = tuple(severity.value for severity in Severity)


class SeverityConfigError(ValueError):
    """A malformed ``severity`` table; the config loader turns it into a ConfigError."""


def parse_table(table, where: Path) -> tuple[tuple[str, Severity], ...]:
    """``{"KL126": "warning"}`` -> ``(("KL126", Severity.WARNING),)``, sorted by key. Keys are
    validated against the rules later, with the other selectors (``config.selected_codes``)."""
    if not isinstance(table, dict):
        raise SeverityConfigError(f'{where}: severity must be a table of rule = "error" | "warning" | "info", '
                                  'e.g. [tool.kernelint.severity] KL126 = "warning"')
    parsed = []
    for key, value in sorted(table.items()):
        if not isinstance(value, str) or value.lower() not in VALUES:
            raise SeverityConfigError(f"{where}: severity of {key!r} must be one of "
                                      f"{', '.join(repr(v) for v in VALUES)}, not {value!r}")
        parsed.append((key.strip(), Severity(value.lower())))
    return tuple(parsed)


def _specificity(key: str, rule) -> int | None:
    """How closely ``key`` names ``rule``: exact code or name beats any prefix; None: no match."""
    if key.upper() == rule.code or key.lower() == rule.name:
        return 1000
    if key.upper().startswith("KL") and rule.code.startswith(key.upper()):
        return len(key)
    return None


def configured(overrides: tuple[tuple[str, Severity], ...], rule) -> Severity | None:
    """The severity the project sets for ``rule``, or None when it sets none."""
    best: tuple[int, Severity] | None = None
    for key, severity in overrides:
        score = _specificity(key, rule)
        if score is not None and (best is None or score > best[0]):
            best = (score, severity)
    return best[1] if best else None


def resulting(finding_severity: Severity, rule, override: Severity | None) -> Severity:
    if override is None:
        return finding_severity
    if finding_severity is rule.severity:
        return override
    return min(finding_severity, override, key=SEVERITY_RANK.__getitem__)


def apply(findings: Iterable[Finding], overrides: tuple[tuple[str, Severity], ...]) -> list[Finding]:
    """``findings`` with the configured severities (the same list order)."""
    findings = list(findings)
    if not overrides:
        return findings
    from kernelint.rules import find_rule

    result = []
    for finding in findings:
        rule = find_rule(finding.code)
        severity = resulting(finding.severity, rule, configured(overrides, rule)) if rule else finding.severity
        result.append(finding if severity is finding.severity else replace(finding, severity=severity))
    return result


def apply_by_settings(findings: Iterable[Finding], groups: dict) -> list[Finding]:
    """Findings of a multi-configuration run (``{settings: [paths]}``), each with the overrides
    of the configuration its file follows."""
    findings = list(findings)
    by_path = {path: settings.severity for settings, paths in groups.items() if settings.severity for path in paths}
    if not by_path:
        return findings
    return [apply([f], by_path[f.path])[0] if f.path in by_path else f for f in findings]
