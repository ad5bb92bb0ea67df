"""docs/evidence.md and docs/rules/*.md are generated (``python -m kernelint.docs_generator``); the
committed files must equal the generator's output, so they cannot go stale."""
from __future__ import annotations

from conftest import ROOT
from kernelint.docs_generator import evidence_page, stale_files
from kernelint.evidence import record_names
from kernelint.prove.manifest import default_root
from kernelint.rules import all_rules


def test_committed_docs_are_up_to_date():
    stale = [str(p.relative_to(ROOT)) for p in stale_files(ROOT, default_root())]
    assert stale == [], "run `python -m kernelint.docs_generator` to regenerate: " + ", ".join(stale)


def test_evidence_page_has_a_row_per_measurable_rule(tmp_path):
    page = evidence_page(tmp_path)  # no pairs here: every claim is missing
    rows = [line for line in page.splitlines() if line.startswith("| KL")]
    further = [name for name in record_names() if "-" in name]  # a rule's pair in another DSL: a row too
    assert len(rows) == len([r for r in all_rules() if r.evidence_class != "none"]) + len(further)
    assert all(any(row.startswith(f"| {name.split('-')[0]} ") and f", {name.split('-')[1]} pair |" in row
                   for row in rows) for name in further)
    assert all("(no reference pair yet)" in row for row in rows)


def test_stale_detection(tmp_path):
    (tmp_path / "docs" / "rules").mkdir(parents=True)
    (tmp_path / "docs" / "rules" / "KL998.md").write_text("a rule that no longer exists\n")
    stale = {p.name for p in stale_files(tmp_path, default_root())}
    assert {"evidence.md", "KL998.md", f"{all_rules()[0].code}.md"} <= stale
