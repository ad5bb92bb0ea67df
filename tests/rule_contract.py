"""What every rule must bring before the suite accepts it (pylint's message-documentation test,
Fixit's VALID/INVALID cases): a reference pair, a fixture it must report, a fixture case it must
stay silent on, and — when it is on by default at error or warning — a measured record that
reproduced its claim."""
from __future__ import annotations

from conftest import PAIRS_ROOT
from fixture_files import Fixture, all_fixtures
from kernelint.evidence import load_record
from kernelint.findings import Severity
from kernelint.rules import Rule


def pair_folder(rule: type[Rule]):
    return PAIRS_ROOT / rule.dsl / f"{rule.code}_{rule.name.replace('-', '_')}"


def contract_problems(rule: type[Rule], fixtures: list[Fixture] | None = None,
                      record: dict | None = None) -> list[str]:
    """Everything ``rule`` lacks; empty when it is complete. Tool rules (KL0xx) have no pair."""
    if rule.evidence_class == "none":
        return []
    fixtures = [f for f in (all_fixtures() if fixtures is None else fixtures) if f.code == rule.code]
    record = load_record(rule.code) if record is None else record
    problems = []
    folder = pair_folder(rule)
    for name in ("bad.py", "good.py", "pair.toml"):
        if not (folder / name).is_file():
            problems.append(f"no reference pair file {folder.relative_to(PAIRS_ROOT.parent)}/{name}")
    marks = [f.marks() for f in fixtures]
    if not any(m["expect"] for m in marks):
        problems.append("no fixture line it must report (`# expect: CODE` in tests/fixtures/<dsl>/CODE_*.py)")
    if not any(m["ok"] or not m["expect"] for m in marks):
        problems.append("no fixture case it must stay silent on (`# ok: CODE`, or a fixture with no `expect`)")
    if rule.default_enabled and rule.severity in (Severity.ERROR, Severity.WARNING):
        if record is None or record.get("verdict") != "reproduced":
            verdict = record.get("verdict") if record else "no record"
            problems.append(f"default-on {rule.severity.value} without a reproduced evidence record ({verdict})")
    return problems
