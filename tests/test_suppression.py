"""Inline suppressions, run through the engine with a test rule (KL990 flags ``flag()``)."""
from __future__ import annotations

import textwrap

import pytest

from fake_rules import FlagRule, register
from kernelint.engine import Options, check_source

CODES = frozenset({"KL001", "KL002", "KL003", FlagRule.code})


@pytest.fixture(autouse=True)
def _flag_rule(monkeypatch):
    register(monkeypatch, FlagRule)


def found(source: str, codes=CODES) -> set[tuple[int, str]]:
    text = "import triton\n" + textwrap.dedent(source)
    return {(f.line - 1, f.code) for f in check_source("t.py", text, Options(frozenset(codes)))}


def test_unsuppressed_finding_is_reported():
    assert found("flag()\n") == {(1, "KL990")}


@pytest.mark.parametrize("comment", [
    "# noqa: KL990", "# noqa:KL990", "# NOQA: kl990", "# noqa: E501, KL990", "# noqa: KL9",
    "# noqa", "# kernelint: disable=flagged-call", "# kernelint: disable=KL990",
])
def test_trailing_suppression_silences_its_line(comment):
    assert found(f"flag()  {comment}\nflag()\n") == {(2, "KL990")}


def test_directive_lists_several_names():
    source = "flag()  # kernelint: disable=no-such-rule, flagged-call\nflag()\n"
    assert found(source) == {(1, "KL003"), (2, "KL990")}


def test_noqa_for_another_rule_does_not_silence():
    assert (1, "KL990") in found("flag()  # noqa: KL002\n")


def test_standalone_directive_silences_the_next_code_line():
    source = """\
    # kernelint: disable=flagged-call

    # an unrelated comment
    flag()
    flag()
    """
    assert found(source) == {(5, "KL990")}


def test_standalone_noqa_silences_only_its_own_line():
    assert found("# noqa: KL990\nflag()\n") == {(1, "KL003"), (2, "KL990")}


def test_disable_file_silences_everywhere():
    source = """\
    flag()
    # kernelint: disable-file=flagged-call
    def f():
        flag()
    """
    assert found(source) == set()


def test_noqa_inside_a_string_is_not_a_suppression():
    assert found('flag("# noqa: KL990")\n') == {(1, "KL990")}


@pytest.mark.parametrize("comment", [
    "# noqa: KL990", "# kernelint: disable=flagged-call", "# kernelint: disable=KL990",
])
def test_unused_suppression_is_reported(comment):
    assert found(f"other()  {comment}\n") == {(1, "KL003")}


def test_unused_file_suppression_is_reported_at_the_comment():
    assert found("# kernelint: disable-file=KL990\nx = 1\n") == {(1, "KL003")}


@pytest.mark.parametrize("comment", [
    "# noqa: KL999", "# kernelint: disable=no-such-rule", "# kernelint: disable=nosuchrule",
])
def test_unknown_rule_in_a_suppression_is_reported(comment):
    [finding] = check_source("t.py", f"import triton\nx = 1  {comment}\n", Options(CODES))
    assert (finding.line, finding.code) == (2, "KL003")
    assert "unknown rule" in finding.message


@pytest.mark.parametrize("comment", ["# noqa: E501", "# noqa: F401, W291", "# noqa", "# type: ignore"])
def test_other_tools_codes_are_not_reported(comment):
    assert found(f"x = 1  {comment}\n") == set()


def test_suppression_of_an_unselected_rule_is_left_alone():
    assert found("x = 1  # noqa: KL990\n", CODES - {"KL990"}) == set()


def test_no_unused_report_when_kl003_is_not_selected():
    assert found("x = 1  # noqa: KL990\n", CODES - {"KL003"}) == set()


def test_unused_suppression_can_itself_be_silenced():
    assert found("x = 1  # noqa: KL990, KL003\n") == set()


def test_one_used_and_one_unused_code_on_a_line():
    assert found("flag()  # noqa: KL990, KL002\n") == {(1, "KL003")}
