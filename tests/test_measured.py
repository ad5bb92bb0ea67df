"""The measurement that stands next to a seed claim (issue 24): README rows and `kernelint explain`
show a perf pair's median, range and the shapes the bad kernel won, not only the verdict."""
from __future__ import annotations

from kernelint.docs import render
from kernelint.docs_generator import rules_table
from kernelint.evidence import load_record
from kernelint.measured import measured, perf_range, timed_ratios
from kernelint.rules import find_rule


def perf(*ratios: float, control: float | None = None, median: float = 1.5) -> dict:
    cases = [{"name": f"c{i}", "control": False, "ratio": r} for i, r in enumerate(ratios)]
    if control is not None:
        cases.append({"name": "small", "control": True, "ratio": control})
    return {"evidence_class": "perf", "verdict": "reproduced", "median_ratio": median, "cases": cases}


def test_range_counts_timed_cases_only():
    record = perf(3.59, 3.39, 2.95, 2.7, control=40.0, median=3.17)
    assert timed_ratios(record) == [3.59, 3.39, 2.95, 2.7]
    assert perf_range(record) == "median 3.17x (2.70-3.59x over 4 shapes)"


def test_shapes_the_bad_kernel_won_are_named():
    assert perf_range(perf(1.68, 0.97, 0.53, 57.63, 1.69, median=1.68)) == \
        "median 1.68x (0.53-57.63x over 5 shapes; bad faster on 2)"


def test_other_classes_give_the_outcome_without_colour_codes():
    record = {"evidence_class": "compile", "verdict": "reproduced",
              "outcome": "bad: `DSLUserCodeError: \x1b[91m\x1b[1merror\x1b[0m x`  (1/1 cases)"}
    assert perf_range(record) is None
    assert measured(record) == "reproduced, bad: `DSLUserCodeError: error x` (1/1 cases)"
    assert perf_range({"evidence_class": "perf", "verdict": "skipped"}) is None


def test_readme_and_explain_show_the_measured_range_next_to_the_claim():
    record = load_record("KL204")
    expected = perf_range(record)
    assert expected and "bad faster on" in expected
    row = next(line for line in rules_table().splitlines() if line.startswith("| KL204 "))
    assert row.endswith(f"perf: reproduced, {expected} |")
    text = render(find_rule("KL204"))
    assert f"- Measured on NVIDIA H200: reproduced, {expected}\n- Seed claim: {record['claim']}\n" in text
