"""Rule fixtures: ``tests/fixtures/<dsl>/KLxxx_<case>.py`` with the findings kernelint must
produce written inline and, beside each, a ``.expected`` snapshot of the exact output.

Inline markers (flake8-bugbear / Semgrep style), each naming one or more codes:

- ``# expect: KL101``       the line must be reported;
- ``# ok: KL101``           the line must not be reported (a case the rule must stay silent on);
- ``# todo-expect: KL101``  a known miss: should be reported, is not yet (the ledger of recall work);
- ``# todo-ok: KL101``      a known false finding: is reported, should not be (the precision ledger).

The snapshot lists ``line:col:end_line:end_col CODE message`` per finding (``CODE [info]
message`` for a finding at another severity than its rule's), so message text, ranges and
per-finding severities are tested too. Fixtures run with only their file's rule selected. Set
``KERNELINT_UPDATE_FIXTURES=1`` to rewrite snapshots after an intentional change; the inline
markers are checked either way, so an update cannot hide a new false finding.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kernelint.engine import Options, check_source
from kernelint.findings import Finding
from kernelint.rules import find_rule

FIXTURES = Path(__file__).resolve().parent / "fixtures"
_MARK = re.compile(r"#\s*(?P<kind>expect|ok|todo-expect|todo-ok):\s*(?P<codes>KL\d{3}(?:\s*,\s*KL\d{3})*)")
_NAME = re.compile(r"^(?P<code>KL\d{3})_\w+\.py$")
_TARGET = re.compile(r"^#\s*kernelint:\s*((?:[\w-]+-version=[\w.]+\s*)+)$", re.M)
_SILENT_UNDER = re.compile(r"^#\s*kernelint-silent-under:\s*((?:[\w-]+-version=[\w.]+\s*)+)$", re.M)


def fixture_targets(text: str):
    """``kernelint.versions.Targets`` from ``triton-version=3.4.0 cutlass-dsl-version=4.5.0`` (the
    first ``# kernelint:`` line of ``text``, or ``text`` itself); the newest known for the rest."""
    from dataclasses import replace as with_field

    from kernelint.config import VERSION_KEYS
    from kernelint.versions import configured_target, newest_targets

    match = _TARGET.search(text)
    spec = match.group(1) if match else (text if "\n" not in text else "")
    targets = newest_targets()
    for item in spec.split():
        key, version = item.split("=", 1)
        dsl = VERSION_KEYS[key]
        targets = with_field(targets, **{dsl: configured_target(dsl, version, "the fixture")})
    return targets


@dataclass(frozen=True)
class Fixture:
    path: Path

    @property
    def code(self) -> str:
        return _NAME.match(self.path.name).group("code")

    @property
    def snapshot(self) -> Path:
        return self.path.with_suffix(".expected")

    @property
    def id(self) -> str:
        return self.path.relative_to(FIXTURES).as_posix()

    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def marks(self) -> dict[str, set[tuple[int, str]]]:
        return markers(self.source())

    def findings(self, versions: str | None = None) -> list[Finding]:
        """The fixture's findings with only its rule selected, under the target releases its
        ``# kernelint: triton-version=X`` line names (or ``versions``, the same syntax); DSLs it
        does not name target the newest release kernelint knows, whatever the checkout pins."""
        targets = fixture_targets(versions if versions is not None else self.source())
        return check_source(self.id, self.source(), Options(frozenset({self.code}), target_versions=targets))

    def silent_under(self) -> list[str]:
        """The ``# kernelint-silent-under: triton-version=X`` lines: target releases under which
        the same file must give no finding of the fixture's rule."""
        return [m.group(1) for m in _SILENT_UNDER.finditer(self.source())]


def markers(source: str) -> dict[str, set[tuple[int, str]]]:
    """Marker kind (``expect``, ``ok``, ``todo-expect``, ``todo-ok``) -> {(line, code)}; the
    one parser of inline expectations, for fixtures and reference pairs alike."""
    found: dict[str, set[tuple[int, str]]] = {k: set() for k in ("expect", "ok", "todo-expect", "todo-ok")}
    for number, line in enumerate(source.splitlines(), start=1):
        for match in _MARK.finditer(line):
            found[match.group("kind")] |= {(number, c.strip()) for c in match.group("codes").split(",")}
    return found


def all_fixtures() -> list[Fixture]:
    return [Fixture(p) for p in sorted(FIXTURES.glob("*/*.py")) if _NAME.match(p.name)]


def render(findings: list[Finding]) -> str:
    """One line per finding; a finding at another severity than its rule's says which; the other
    sites of its cause (``Finding.related``) follow it, one ``  and ...`` line each."""
    return "".join(
        f"{f.line}:{f.column}:{f.end_line}:{f.end_column} {f.code}{_quieter(f)} {f.message}\n"
        + "".join(f"  and {s.line}:{s.column}:{s.end_line}:{s.end_column} {s.message}\n" for s in f.related)
        for f in findings
    )


def reported_sites(findings: list[Finding]) -> set[tuple[int, str]]:
    """(line, code) of every site the findings report: each finding's own and its related ones
    (a grouped finding reports each site of its cause)."""
    return {(f.line, f.code) for f in findings} | {(s.line, f.code) for f in findings for s in f.related}


def _quieter(finding: Finding) -> str:
    rule = find_rule(finding.code)
    return "" if rule is None or finding.severity is rule.severity else f" [{finding.severity.value}]"
