"""One finding per cause: a rule's reports that name the same cause (``Report(cause=...)``) become
one finding at the first site, with the others attached as ``related`` sites.

A cause is the file's by default: the engine folds a file's reports of one rule with the same key
(``group_by_cause``), each file alone, so the cache keeps per-file results. A cause that lives
somewhere in the project rather than in the reporting file (the host function that reads a
grid's sizes, a kernel launched from several modules) is written with ``project_cause(anchor,
what)``: its key names the anchor (a path relative to the project root, a kernel), so it never
meets another project's or another file's cause by accident, and the runner folds its sites
across every file checked once they are all in (``group_across_files``), after the cache is
read, so warm and cold runs and any ``-j`` give the same findings. A front end that sees one
file at a time (flake8, pylint, the language server) gets that file's sites of such a cause as
one finding.

Grouping runs after suppressions, so a suppressed site is neither reported nor counted, and a
cause whose first site is suppressed is reported at its next one. The most severe site leads
(then the first by path and position); the group's facts are every member's, each once; a fix of
a grouped finding carries the edits of the members in the lead's file (an edit names no file),
and is safe only when all of those are.
"""
from __future__ import annotations

from dataclasses import replace

from kernelint.findings import SEVERITY_RANK, Finding, Fix, Site


def site_of(finding: Finding) -> Site:
    return Site(finding.path, finding.line, finding.column, finding.end_line, finding.end_column,
                finding.message)


#: How a project-wide cause key starts (``project_cause``); a file's own cause is any other key.
_PROJECT = "project:"


def project_cause(anchor: str, what: str) -> str:
    """The key of a cause that lives at ``anchor`` in the project (``ops/common.py`` where the
    sizes are read; ``ops/kernels.py:attn_fwd`` for a kernel): its sites in every file checked
    are one finding. ``anchor`` must name the place unambiguously within the project, and
    ``what`` the cause there (two causes at one anchor must differ in ``what``)."""
    return f"{_PROJECT}{anchor}: {what}"


def in_project(cause: str | None) -> bool:
    """True for a key written by ``project_cause``: its sites may be in several files."""
    return cause is not None and cause.startswith(_PROJECT)


def group_by_cause(findings: list[Finding]) -> list[Finding]:
    """``findings`` with each (path, code, cause) group folded into one finding, sorted."""
    return _grouped(findings, lambda f: (f.path, f.code, f.cause))


def group_across_files(findings: list[Finding], project_of=lambda path: None) -> list[Finding]:
    """``findings`` (each file's already grouped) with the sites of each project-wide cause
    (``project_cause``) folded into one finding across the files of one project
    (``project_of(path)``: two checked projects may each have an `ops/attn.py`), sorted. The same
    result whatever order the files were checked in."""
    return _grouped(findings, lambda f: (project_of(f.path), f.code, f.cause) if in_project(f.cause) else None)


def _grouped(findings: list[Finding], key_of) -> list[Finding]:
    groups: dict[tuple, list[Finding]] = {}
    alone: list[Finding] = []
    for finding in sorted(findings, key=_order):
        key = key_of(finding) if finding.cause is not None else None
        if key is None:
            alone.append(finding)
        else:
            groups.setdefault(key, []).append(finding)
    for members in groups.values():
        alone.append(_fold(members) if len(members) > 1 else members[0])
    return sorted(alone, key=_order)


def _order(finding: Finding) -> tuple:
    """Position order, then what ``Finding``'s own order leaves out (cause, related sites), so
    findings that tie on position come out the same way whatever order they came in."""
    return (finding, finding.cause or "", tuple(_site_order(s) for s in finding.related))


def _site_order(site: Site) -> tuple:
    return (site.path, site.line, site.column, site.end_line, site.end_column, site.message)


def _fold(members: list[Finding]) -> Finding:
    lead = max(members, key=lambda f: SEVERITY_RANK[f.severity])  # max keeps the first of equals
    others = [f for f in members if f is not lead]
    related = [*lead.related]
    for other in others:
        related.append(site_of(other))
        related.extend(other.related)
    facts = []
    for member in (lead, *others):
        for fact in member.facts:
            if fact not in facts:
                facts.append(fact)
    return replace(lead, related=tuple(sorted(set(related), key=_site_order)),
                   facts=tuple(facts), fix=_merged_fix(lead, others))


def _merged_fix(lead: Finding, others: list[Finding]) -> Fix | None:
    """The members' fixes in the lead's file as one (an edit names no file, so a fix of a site in
    another file stays with that file's own run: ``kernelint check --fix`` fixes file by file)."""
    fixes = [f.fix for f in (lead, *others) if f.fix is not None and f.path == lead.path]
    if not fixes:
        return None
    if len(fixes) == 1:
        return fixes[0]
    edits = tuple(edit for fix in fixes for edit in fix.edits)
    return Fix(fixes[0].title, edits, all(fix.safe for fix in fixes))
