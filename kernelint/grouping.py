"""One finding per cause: a rule's reports in one file that name the same cause (``Report(cause=
...)``) become one finding at the first site, with the others attached as ``related`` sites.

Grouping runs after suppressions, so a suppressed site is neither reported nor counted, and a
cause whose first site is suppressed is reported at its next one. The most severe site leads
(then the first in the file); the group's facts are every member's, each once; a fix of a grouped
finding carries every member's edits, and is safe only when all of them are.
"""
from __future__ import annotations

from dataclasses import replace

from kernelint.findings import SEVERITY_RANK, Finding, Fix, Site


def site_of(finding: Finding) -> Site:
    return Site(finding.path, finding.line, finding.column, finding.end_line, finding.end_column,
                finding.message)


def group_by_cause(findings: list[Finding]) -> list[Finding]:
    """``findings`` with each (path, code, cause) group folded into one finding, sorted."""
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    alone: list[Finding] = []
    for finding in sorted(findings):
        if finding.cause is None:
            alone.append(finding)
        else:
            groups.setdefault((finding.path, finding.code, finding.cause), []).append(finding)
    if not groups:
        return alone
    for members in groups.values():
        alone.append(_fold(members) if len(members) > 1 else members[0])
    return sorted(alone)


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
    return replace(lead, related=tuple(sorted(set(related), key=lambda s: (s.path, s.line, s.column))),
                   facts=tuple(facts), fix=_merged_fix(lead, others))


def _merged_fix(lead: Finding, others: list[Finding]) -> Fix | None:
    fixes = [f.fix for f in (lead, *others) if f.fix is not None]
    if not fixes:
        return None
    if len(fixes) == 1:
        return fixes[0]
    edits = tuple(edit for fix in fixes for edit in fix.edits)
    return Fix(fixes[0].title, edits, all(fix.safe for fix in fixes))
