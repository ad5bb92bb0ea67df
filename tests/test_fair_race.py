"""A perf pair is a fair race (issues 10 and 24): besides enough shapes and a control
(test_manifests), the bad and the good kernel are called the same way on the same data, and every
committed perf record timed both on the same problem.

- bad.py and good.py define the entry with the same parameters (names, kinds, defaults), so
  neither side can take a smaller problem or an extra size argument;
- reference.make_inputs gives the same tensors every time it is called for a case (prove builds
  them once in the bad process and once in the good one), and its keys are the entry's
  parameters: the control case is built twice on the CPU and compared element by element;
- in each committed perf record, every timed case's bad and good outputs have the same number of
  elements and their time x throughput (the work the case was credited with) is equal."""
from __future__ import annotations

import ast
import importlib.util
import math
import sys

import pytest

from conftest import pair_dirs

from kernelint.evidence import evidence_codes, load_record
from kernelint.prove.manifest import load_pair

PERF_PAIRS = [d for d in pair_dirs() if load_pair(d).evidence_class == "perf"]
PERF_RECORDS = [code for code in evidence_codes() if (load_record(code) or {}).get("evidence_class") == "perf"]


def entry_signature(path, entry: str) -> tuple:
    """The parameters of ``def entry`` in ``path``: (kind, name, default source) each."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            args = node.args
            positional = args.posonlyargs + args.args
            defaults = [None] * (len(positional) - len(args.defaults)) + [ast.unparse(d) for d in args.defaults]
            params = [("positional", a.arg, d) for a, d in zip(positional, defaults)]
            params += [("keyword", a.arg, ast.unparse(d) if d is not None else None)
                       for a, d in zip(args.kwonlyargs, args.kw_defaults)]
            params += [("*args", args.vararg.arg, None)] if args.vararg else []
            params += [("**kwargs", args.kwarg.arg, None)] if args.kwarg else []
            return tuple(params)
    raise AssertionError(f"{path.name} defines no function {entry}")


@pytest.mark.parametrize("directory", PERF_PAIRS, ids=[d.name for d in PERF_PAIRS])
def test_bad_and_good_entries_take_the_same_arguments(directory):
    pair = load_pair(directory)
    assert entry_signature(directory / "bad.py", pair.entry) == entry_signature(directory / "good.py", pair.entry)


def _reference(directory):
    spec = importlib.util.spec_from_file_location(f"fair_race_{directory.name}", directory / "reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(directory))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(directory))
    return module


def _same(a, b) -> bool:
    import torch

    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("directory", PERF_PAIRS, ids=[d.name for d in PERF_PAIRS])
@pytest.mark.full  # torch on the CPU: the full tier
def test_both_sides_get_the_same_inputs(directory):
    torch = pytest.importorskip("torch")
    pair = load_pair(directory)
    if pair.dsl != "triton":
        pytest.skip("the CuTe DSL references build their inputs with the DSL's GPU runtime")
    control = next(case for case in pair.cases if case.control)
    reference = _reference(directory)
    built = []
    for _ in range(2):
        torch.manual_seed(0)  # as prove's child does before make_inputs, in each process
        built.append(reference.make_inputs(dict(control.params), "cpu"))
    first, second = built
    assert set(first) == set(second)
    assert all(_same(first[key], second[key]) for key in first), f"{directory.name}: make_inputs is not repeatable"
    signature = entry_signature(directory / "good.py", pair.entry)
    named = {name for kind, name, default in signature if kind in ("positional", "keyword")}
    required = {name for kind, name, default in signature if kind in ("positional", "keyword") and default is None}
    assert required <= set(first), f"{directory.name}: inputs {sorted(first)} lack {sorted(required - set(first))}"
    if not any(kind == "**kwargs" for kind, _, _ in signature):
        assert set(first) <= named, f"{directory.name}: inputs {sorted(first)} the entry does not take"


def same_problem_problems(record: dict) -> list[str]:
    """Timed cases of a perf record where bad and good did not run the same problem."""
    problems = []
    for case in record.get("cases") or []:
        bad, good = case.get("bad") or {}, case.get("good") or {}
        if case.get("control") or "time_ms" not in bad or "time_ms" not in good:
            continue
        if bad.get("numel") != good.get("numel"):
            problems.append(f"{case['name']}: bad wrote {bad.get('numel')} elements, good {good.get('numel')}")
        if bad.get("throughput_unit") != good.get("throughput_unit"):
            problems.append(f"{case['name']}: throughput in {bad.get('throughput_unit')} (bad) "
                            f"vs {good.get('throughput_unit')} (good)")
        elif "throughput" in bad and "throughput" in good:
            work_bad, work_good = bad["throughput"] * bad["time_ms"], good["throughput"] * good["time_ms"]
            if not math.isclose(work_bad, work_good, rel_tol=1e-6):
                problems.append(f"{case['name']}: credited work {work_bad:.6g} (bad) vs {work_good:.6g} (good)")
    return problems


@pytest.mark.parametrize("code", PERF_RECORDS)
def test_record_timed_both_sides_on_the_same_problem(code):
    assert same_problem_problems(load_record(code)) == []


def test_a_record_with_different_problems_is_refused():
    record = load_record("KL202")
    case = next(c for c in record["cases"] if not c.get("control"))
    smaller = {**case, "bad": {**case["bad"], "numel": case["bad"]["numel"] // 2}}
    assert same_problem_problems({"cases": [smaller]}) == [
        f"{case['name']}: bad wrote {case['bad']['numel'] // 2} elements, good {case['good']['numel']}"]
    cheaper = {**case, "bad": {**case["bad"], "throughput": case["bad"]["throughput"] / 2}}
    assert "credited work" in same_problem_problems({"cases": [cheaper]})[0]
