"""Every pair's pair.toml is complete and agrees with its rule and its files; the validator itself
rejects broken manifests with messages that name the problem."""
from __future__ import annotations

import textwrap

import pytest

from conftest import pair_dirs
from kernelint.prove.manifest import (MIN_PERF_CASES, MIN_PERF_TIMED, ManifestError, Pair, file_problems,
                                      load_pair, module_functions)
from kernelint.rules import find_rule

PAIRS = pair_dirs()


@pytest.mark.parametrize("directory", PAIRS, ids=[p.name for p in PAIRS])
def test_manifest_is_valid(directory):
    pair = load_pair(directory)
    assert isinstance(pair, Pair)
    assert pair.claim, "quote the seed's claim in `claim`"


@pytest.mark.parametrize("directory", PAIRS, ids=[p.name for p in PAIRS])
def test_manifest_agrees_with_rule(directory):
    pair = load_pair(directory)
    rule = find_rule(pair.code)
    assert rule is not None, f"{directory.name}: no registered rule {pair.code}"
    assert pair.evidence_class == rule.evidence_class, (
        f"pair.toml says {pair.evidence_class}, the rule {rule.code} says {rule.evidence_class}")
    assert pair.dsl in rule.dsls()  # the home DSL, or another the rule reads (KL126's cuTile pair)


@pytest.mark.parametrize("directory", PAIRS, ids=[p.name for p in PAIRS])
def test_files_define_what_prove_calls(directory):
    assert file_problems(load_pair(directory)) == []


@pytest.mark.parametrize("directory", PAIRS, ids=[p.name for p in PAIRS])
def test_perf_pairs_are_a_fair_race(directory):
    pair = load_pair(directory)
    if pair.evidence_class == "perf":
        assert len(pair.cases) >= MIN_PERF_CASES
        assert len([c for c in pair.cases if not c.control]) >= MIN_PERF_TIMED
        assert any(c.control for c in pair.cases), "a perf pair needs a small control case"


# --- the validator on synthetic folders --------------------------------------------------------

GOOD_TOML = """
code = "KL104"
dsl = "triton"
evidence_class = "compile"
entry = "run"
watchdog_s = 60
interpret = true
requires = ["torch", "triton"]
claim = "erf rejects fp16"

[expect]
bad_error = "Expected dtype"
atol = 1e-2
rtol = 1e-2

[[cases]]
name = "small"
n = 128
cpu = true
"""

KERNEL = "import torch\n\ndef run(x):\n    return x\n"
REFERENCE = "def make_inputs(case, device):\n    return {}\n\ndef reference(**kw):\n    return None\n"


def make_pair(tmp_path, toml=GOOD_TOML, dsl="triton", folder="KL104_erf_needs_fp32", bad=KERNEL,
              good=KERNEL, reference=REFERENCE):
    directory = tmp_path / dsl / folder
    directory.mkdir(parents=True)
    (directory / "pair.toml").write_text(textwrap.dedent(toml))
    for name, text in (("bad.py", bad), ("good.py", good), ("reference.py", reference)):
        if text is not None:
            (directory / name).write_text(text)
    return directory


def problems_of(tmp_path, **kwargs) -> str:
    with pytest.raises(ManifestError) as info:
        load_pair(make_pair(tmp_path, **kwargs))
    return str(info.value)


def test_valid_manifest_loads(tmp_path):
    pair = load_pair(make_pair(tmp_path))
    assert (pair.code, pair.name, pair.evidence_class, pair.entry) == ("KL104", "erf-needs-fp32", "compile", "run")
    assert pair.watchdog_s == 60.0 and pair.interpret and pair.requires == ("torch", "triton")
    assert [c.name for c in pair.interpret_cases()] == ["small"]
    assert pair.cases[0].params == {"name": "small", "n": 128, "cpu": True}
    assert file_problems(pair) == []


@pytest.mark.parametrize("change, message", [
    (("code = \"KL104\"", "code = \"KL105\""), "folder is named for 'KL104'"),
    (("code = \"KL104\"", "code = \"104\""), "not of the form KL123"),
    (("dsl = \"triton\"", "dsl = \"cute\""), "lives under triton/"),
    (("\"compile\"", "\"slow\""), "evidence_class: 'slow' is not one of"),
    (("watchdog_s = 60", "watchdog_s = -1"), "watchdog_s: must be a positive number"),
    (("watchdog_s = 60", "watchdog_s = \"60\""), "watchdog_s: expected a number"),
    (("bad_error = \"Expected dtype\"\n", ""), "bad_error: missing"),
    (("bad_error = \"Expected dtype\"", "bad_error = \"(unclosed\""), "not a valid regular expression"),
    (("atol = 1e-2\n", ""), "expect.atol: missing"),
    (("claim = \"erf rejects fp16\"\n", ""), "claim: missing"),
    (("entry = \"run\"", "entry = \"run it\""), "not a Python identifier"),
    (("interpret = true", "interpret = true\nspeed = 3"), "unknown key 'speed'"),
    (("cpu = true", "cpu = \"yes\""), "cpu: expected true or false"),
    (("cpu = true", "cpu = false"), "no (non-control) case has cpu = true"),
    (("n = 128", "n = 128\ncontrol = true"), "every case is a control"),
    (("requires = [\"torch\", \"triton\"]", "requires = [\"torch\", 3]"), "requires: 3 is not a module name"),
])
def test_invalid_manifests_name_the_problem(tmp_path, change, message):
    old, new = change
    assert old in GOOD_TOML
    assert message in problems_of(tmp_path, toml=GOOD_TOML.replace(old, new))


def test_perf_pair_needs_four_cases_and_no_error_pattern(tmp_path):
    toml = GOOD_TOML.replace("\"compile\"", "\"perf\"").replace("interpret = true", "interpret = false")
    text = problems_of(tmp_path, toml=toml)
    assert "at least 4 cases, has 1" in text
    assert "only crash and compile pairs expect an error" in text


PERF_TOML = GOOD_TOML.replace("\"compile\"", "\"perf\"").replace("interpret = true", "interpret = false").replace(
    'bad_error = "Expected dtype"\n', "").split("[[cases]]")[0]
PERF_REFERENCE = REFERENCE + "\ndef work(case):\n    return 2 * case[\"n\"], \"FLOP\"\n"


def _perf_cases(*tables: str) -> str:
    return PERF_TOML + "".join(f"[[cases]]\nname = \"c{i}\"\nn = {2 ** (10 + i)}\n{extra}\n"
                               for i, extra in enumerate(tables))


def test_three_case_perf_pair_is_refused(tmp_path):
    """Issue 10: a perf pair is a fair race. Three timed shapes and no control are not enough."""
    text = problems_of(tmp_path, toml=_perf_cases("", "", ""), reference=PERF_REFERENCE)
    assert "a perf pair needs at least 4 cases, has 3" in text
    assert "a perf pair needs a small control case (`control = true`), has none" in text


def test_perf_pair_needs_a_control_and_three_timed_cases(tmp_path):
    four_timed = problems_of(tmp_path / "a", toml=_perf_cases("", "", "", ""), reference=PERF_REFERENCE)
    assert "needs a small control case" in four_timed and "at least 4 cases" not in four_timed
    two_timed = problems_of(tmp_path / "b", toml=_perf_cases("", "", "control = true", "control = true"),
                            reference=PERF_REFERENCE)
    assert "at least 3 timed (non-control) cases, has 2" in two_timed
    fair = load_pair(make_pair(tmp_path / "c", toml=_perf_cases("", "", "", "control = true"),
                               reference=PERF_REFERENCE))
    assert [c.control for c in fair.cases] == [False, False, False, True]
    assert file_problems(fair) == []


@pytest.mark.parametrize("work, message", [
    ("    return 2 * case['n'], 'FLOPS'\n", "unit must be one of 'FLOP', 'B', got 'FLOPS'"),
    ("    return 2 * case['n'], 'FLOP', 'fp8'\n", "peak must be one of"),
    ("    return figures(case)\n", "must return a literal (amount, unit)"),
    ("    pass\n", "work() returns nothing"),
])
def test_perf_work_must_give_a_throughput_unit(tmp_path, work, message):
    pair = load_pair(make_pair(tmp_path, toml=_perf_cases("", "", "", "control = true"),
                               reference=REFERENCE + "\ndef work(case):\n" + work))
    assert any(message in problem for problem in file_problems(pair)), file_problems(pair)


def test_interpret_only_for_triton(tmp_path):
    toml = GOOD_TOML.replace("dsl = \"triton\"", "dsl = \"cute\"")
    assert "only Triton pairs run under TRITON_INTERPRET=1" in problems_of(tmp_path, toml=toml, dsl="cute")


def test_missing_files_and_bad_toml(tmp_path):
    assert "good.py: missing" in problems_of(tmp_path, good=None)
    assert "not valid TOML" in problems_of(tmp_path / "other", toml="code = ")


def test_file_problems_reads_definitions_without_importing(tmp_path):
    bad = "import no_such_module_anywhere\n\ndef launch(x):\n    return x\n"
    reference = "def make_inputs(case, device):\n    return {}\n"
    pair = load_pair(make_pair(tmp_path, bad=bad, reference=reference))
    problems = file_problems(pair)
    assert "bad.py: defines no top-level function 'run' (the manifest's entry)" in problems
    assert "reference.py: defines no top-level function 'reference'" in problems
    assert not any(p.startswith("good.py") for p in problems)
    assert module_functions(pair.directory / "bad.py") == {"launch"}
