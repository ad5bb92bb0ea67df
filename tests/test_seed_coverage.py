"""docs/seed-coverage.md accounts for every row of the seed tables. These checks tie it to the rule
registry, so the page cannot name a rule that does not exist, call a written rule "planned", miss a
measurable rule, or carry a summary that no longer matches its rows."""
from __future__ import annotations

import re
from collections import Counter

from conftest import ROOT

from kernelint.rules import all_rules, find_rule

DOC = ROOT / "docs" / "seed-coverage.md"

# `KL104 erf-needs-fp32` (backticked) names an implemented rule; the planned form is spelled out.
IMPLEMENTED = re.compile(r"`(KL\d{3}) ([a-z0-9]+(?:-[a-z0-9]+)*)`")
PLANNED = re.compile(r"planned: (KL\d{3}) ([a-z0-9]+(?:-[a-z0-9]+)*) \(not implemented yet\)")
ROW = re.compile(r"^\| (\d+\.\d+[a-z]?) \| [^|]+ \| ([^|]+) \|")
SUMMARY = re.compile(
    r"\*\*Summary: (\d+) rows\. (\d+) encoded by an implemented rule, (\d+) by a planned rule, "
    r"(\d+) not a static rule, (\d+) candidates"
)
KINDS = {"`KL": "implemented", "planned:": "planned", "not a static rule:": "static", "candidate:": "candidate"}


def _flat(text: str) -> str:
    """Mentions may wrap across lines in prose; match them on one line."""
    return re.sub(r"\s+", " ", text)


def registry_problems(text: str) -> list[str]:
    flat = _flat(text)
    problems = []
    implemented = set(IMPLEMENTED.findall(flat))
    for code, name in sorted(implemented):
        rule = find_rule(code)
        if rule is None:
            problems.append(f"{code} {name} is cited as implemented but is not registered")
        elif rule.name != name:
            problems.append(f"{code} is cited as {name!r} but the registry names it {rule.name!r}")
    for code, name in sorted(set(PLANNED.findall(flat))):
        if find_rule(code) is not None or find_rule(name) is not None:
            problems.append(f"{code} {name} is marked planned but is registered now")
    for rule in all_rules():
        if rule.evidence_class != "none" and (rule.code, rule.name) not in implemented:
            problems.append(f"{rule.code} {rule.name} (evidence {rule.evidence_class}) is never cited")
    return problems


def row_kinds(text: str) -> dict[str, str]:
    kinds: dict[str, str] = {}
    for line in text.splitlines():
        match = ROW.match(line)
        if not match:
            continue
        row_id, coverage = match.group(1), match.group(2).strip()
        assert row_id not in kinds, f"row {row_id} appears twice"
        kind = next((k for prefix, k in KINDS.items() if coverage.startswith(prefix)), None)
        assert kind is not None, f"row {row_id}: coverage must start with one of {list(KINDS)}"
        kinds[row_id] = kind
    return kinds


def test_doc_agrees_with_registry():
    assert registry_problems(DOC.read_text(encoding="utf-8")) == []


def test_summary_counts_match_rows():
    text = DOC.read_text(encoding="utf-8")
    summary = SUMMARY.search(_flat(text))
    assert summary, "the summary line is missing or reworded"
    counts = Counter(row_kinds(text).values())
    total = sum(counts.values())
    assert total > 0
    assert [int(n) for n in summary.groups()] == [
        total, counts["implemented"], counts["planned"], counts["static"], counts["candidate"]
    ]


def test_drift_is_caught():
    text = DOC.read_text(encoding="utf-8")
    rule = next(r for r in all_rules() if r.evidence_class != "none")
    renamed = text.replace(f"`{rule.code} {rule.name}`", f"`{rule.code} {rule.name}-old`")
    assert any("registry names it" in p for p in registry_problems(renamed))
    assert any("never cited" in p for p in registry_problems(renamed))
    marked_planned = text + f"\nplanned: {rule.code} {rule.name} (not implemented yet)\n"
    assert any("registered now" in p for p in registry_problems(marked_planned))
    unknown = text + "\n`KL999 no-such-rule`\n"
    assert any("KL999" in p for p in registry_problems(unknown))
