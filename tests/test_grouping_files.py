"""One finding per cause across files (issue 21): a cause the rule anchors in the project
(``grouping.project_cause``) is one finding however many files its sites are in, folded by the
runner after every file is checked, so warm and cold cache runs and any ``-j`` give the same
output; two different causes never merge; a baseline entry of such a cause stays matched when a
site moves to another file.

The real case is KL126 on two fixture projects: ``KL126_sizes_read_in_a_wrapper_module`` (one
module reads `B, H` and two launcher modules put `B * H` on axis 1: one cause) and
``KL126_each_module_reads_its_own_sizes`` (each launcher module reads its own: two causes)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kernelint import baseline, runner
from kernelint.config import Settings
from kernelint.findings import Confidence, Edit, Finding, Fix, Severity
from kernelint.grouping import group_across_files, group_by_cause, in_project, project_cause
from kernelint.output import json_format, sarif
from kernelint.output.text import render as render_text
from kernelint.sources import Sources

PROJECTS = Path(__file__).parent / "projects"
SHARED = "KL126_sizes_read_in_a_wrapper_module"
OWN = "KL126_each_module_reads_its_own_sizes"


def _copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root)
    return root


def _check(root: Path, jobs: int = 1, use_cache: bool = False, reverse: bool = False) -> list[Finding]:
    files = sorted(str(p) for p in root.rglob("*.py"))
    if reverse:
        files.reverse()
    return runner.check_groups({Settings(select=("KL126",)): files}, jobs=jobs, use_cache=use_cache)


def _shape(findings: list[Finding]) -> list[tuple]:
    """Everything a front end shows of each finding."""
    return [(f.path, f.line, f.code, f.severity, f.message, f.cause,
             tuple((s.path, s.line, s.column, s.message) for s in f.related),
             tuple((x.text, x.site) for x in f.facts)) for f in findings]


def _rel(root: Path, path: str) -> str:
    return Path(path).relative_to(root).as_posix()


def test_one_cause_in_two_files_is_one_finding_with_the_other_file_related(tmp_path):
    root = _copy(tmp_path, SHARED)
    (finding,) = _check(root)
    assert (_rel(root, finding.path), finding.line) == ("pkg/backward.py", 7)
    assert [(_rel(root, s.path), s.line) for s in finding.related] == [("pkg/forward.py", 8)]
    assert in_project(finding.cause) and "pkg/layer.py" in finding.cause
    assert finding.shown_message.endswith(f"(and 1 more: {finding.related[0].path}:8)")
    assert any("pkg/layer.py:6" in fact.text for fact in finding.facts)


def test_different_causes_in_two_files_stay_two_findings(tmp_path):
    root = _copy(tmp_path, OWN)
    findings = _check(root)
    assert [(_rel(root, f.path), f.line, f.related) for f in findings] == [
        ("pkg/backward.py", 8, ()), ("pkg/forward.py", 9, ())]
    assert findings[0].cause != findings[1].cause


def test_the_same_anchor_in_two_projects_is_two_causes(tmp_path):
    """Both projects read `B, H` in their own `pkg/layer.py`: the keys are equal text, the
    projects are not."""
    first = _copy(tmp_path / "a", SHARED)
    second = _copy(tmp_path / "b", SHARED)
    files = sorted(str(p) for root in (first, second) for p in root.rglob("*.py"))
    findings = runner.check_groups({Settings(select=("KL126",)): files}, jobs=1, use_cache=False)
    assert [(Path(f.path).parents[2].name, len(f.related)) for f in findings] == [("a", 1), ("b", 1)]
    assert findings[0].cause == findings[1].cause


def test_warm_cache_cold_cache_and_jobs_give_identical_findings(tmp_path, monkeypatch):
    root = _copy(tmp_path, SHARED)
    monkeypatch.setenv("KERNELINT_CACHE_DIR", str(tmp_path / "cache"))
    cold = _check(root)
    first = _check(root, use_cache=True)   # fills the cache
    warm = _check(root, use_cache=True)    # every file from the cache
    monkeypatch.setattr(runner, "_PARALLEL_THRESHOLD", 1)
    parallel = _check(root, jobs=2, reverse=True)
    assert _shape(cold) == _shape(first) == _shape(warm) == _shape(parallel)
    assert len(cold) == 1 and len(cold[0].related) == 1


def test_json_sarif_and_text_name_the_other_file(tmp_path, monkeypatch):
    root = _copy(tmp_path, SHARED)
    monkeypatch.chdir(root)
    from kernelint.rules import all_rules

    findings = _check(root)
    sources = Sources()
    (entry,) = json.loads(json_format.render(findings, all_rules()))
    assert [(_rel(root, r["path"]), r["line"]) for r in entry["related"]] == [("pkg/forward.py", 8)]
    log = json.loads(sarif.render(findings, all_rules(), sources=sources))
    (result,) = log["runs"][0]["results"]
    assert [r["physicalLocation"]["artifactLocation"]["uri"] for r in result["relatedLocations"]] \
        == ["pkg/forward.py"]
    text = render_text(findings, all_rules(), sources=sources)
    assert f"(and 1 more: {findings[0].related[0].path}:8)" in text
    full = render_text(findings, all_rules(), sources=sources, style="full")
    assert "same cause" in full and "pkg/forward.py:8" in full


def _grouped_finding(path: str, line: int, cause: str, severity=Severity.WARNING, fix=None) -> Finding:
    return Finding(path, line, 1, line, 5, "KL992", "flagged-cause", severity, Confidence.HIGH,
                   f"flagged at {line}", fix, cause=cause)


def test_project_causes_fold_across_files_and_file_causes_do_not():
    shared = project_cause("ops/common.py", "B × H")
    findings = [
        _grouped_finding("ops/b.py", 3, shared),
        _grouped_finding("ops/a.py", 9, shared),
        _grouped_finding("ops/a.py", 4, "B × H"),   # a file's own cause, same text elsewhere
        _grouped_finding("ops/b.py", 5, "B × H"),
        _grouped_finding("ops/c.py", 2, project_cause("ops/other.py", "B × H")),
    ]
    grouped = group_across_files(group_by_cause(findings))
    assert [(f.path, f.line, [(s.path, s.line) for s in f.related]) for f in grouped] == [
        ("ops/a.py", 4, []), ("ops/a.py", 9, [("ops/b.py", 3)]), ("ops/b.py", 5, []), ("ops/c.py", 2, [])]
    # Any input order gives the same output.
    assert _shape(group_across_files(group_by_cause(list(reversed(findings))))) == _shape(grouped)


def test_a_cross_file_lead_keeps_only_its_own_files_fix():
    """An edit names no file: the fix of a site in another file is not carried to the lead."""
    shared = project_cause("ops/common.py", "B × H")
    fix_a = Fix("use axis 0", (Edit(9, 0, 9, 3, "x"),))
    fix_b = Fix("use axis 0", (Edit(3, 0, 3, 3, "y"),))
    (lead,) = group_across_files([_grouped_finding("ops/b.py", 3, shared, Severity.ERROR, fix_b),
                                  _grouped_finding("ops/a.py", 9, shared, Severity.WARNING, fix_a)])
    assert (lead.path, lead.severity, lead.fix) == ("ops/b.py", Severity.ERROR, fix_b)


def test_a_baseline_entry_of_a_cross_file_cause_survives_its_lead_site_moving_file(tmp_path, monkeypatch):
    root = _copy(tmp_path, SHARED)
    monkeypatch.chdir(root)
    (before,) = _check(root)
    assert _rel(root, before.path) == "pkg/backward.py"
    baseline.write(root / "base.json", [before], Sources())
    (entry,) = json.loads((root / "base.json").read_text())["findings"]
    assert entry["anywhere"] is True
    # The lead site's launcher moves to a new module: the lead is now pkg/forward.py's site.
    moved = root / "pkg" / "ops_backward.py"
    (root / "pkg" / "backward.py").rename(moved)
    layer = root / "pkg" / "layer.py"
    layer.write_text(layer.read_text().replace("pkg.backward", "pkg.ops_backward"))
    (after,) = _check(root)
    assert _rel(root, after.path) == "pkg/forward.py"
    assert [_rel(root, s.path) for s in after.related] == ["pkg/ops_backward.py"]
    assert baseline.new_findings([after], root / "base.json", Sources()) == []
    # A different cause (a launcher reading its own sizes) is new.
    own = root / "pkg" / "own.py"
    own.write_text((PROJECTS / OWN / "pkg" / "forward.py").read_text())
    new = [f for f in _check(root) if f.path == str(own)]
    assert len(new) == 1
    assert baseline.new_findings(new, root / "base.json", Sources()) == new


@pytest.mark.parametrize("name", [SHARED, OWN])
def test_each_front_end_that_sees_one_file_gets_that_files_sites(tmp_path, name):
    """flake8 and pylint run the engine on one file: a cross-file cause is one finding per file
    there (documented in both plugins)."""
    from kernelint.frontend import check_with_project_config

    root = _copy(tmp_path, name)
    for path in sorted(root.rglob("*.py")):
        findings = [f for f in check_with_project_config(str(path), path.read_text()) if f.code == "KL126"]
        assert all(f.path == str(path) and all(s.path == str(path) for s in f.related) for f in findings)
        assert len(findings) == (1 if path.name in ("forward.py", "backward.py") else 0)


KERNEL = '''import triton
import triton.language as tl


@triton.jit
def {name}(x_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    block = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(0, 0),
                              block_shape=(BM, BN), order=(1, 0))
    x = tl.load(block, boundary_check=(0, 1))
    tl.store(block, {value}, boundary_check=(0, 1))
'''


def test_one_removed_api_under_one_target_is_one_finding_across_files(tmp_path):
    """KL131: the target release removed `tl.make_block_ptr`; its uses in two modules are one
    cause (the decision is the project's), a deprecated keyword in a third is another."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "ops"\ndependencies = ["triton==3.9.0"]\n')
    package = tmp_path / "ops"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(KERNEL.format(name="scale", value="x * 2"))
    (package / "b.py").write_text(KERNEL.format(name="shift", value="x + 1"))
    (package / "c.py").write_text("import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
                                  "def mm(a, b):\n    return tl.dot(a, b, allow_tf32=False)\n")
    files = sorted(str(p) for p in package.glob("*.py"))
    findings = runner.check_groups({Settings(select=("KL131",)): files}, jobs=1, use_cache=False)
    shown = [(Path(f.path).name, f.line, [(Path(s.path).name, s.line) for s in f.related]) for f in findings]
    assert shown == [("a.py", 7, [("b.py", 7)]), ("c.py", 7, [])]


def test_diff_keeps_a_cause_whose_changed_site_is_not_its_lead(tmp_path):
    """`--diff`: a change to the launch in pkg/forward.py (not the lead site) still shows the
    cause it belongs to."""
    import subprocess
    import sys

    from test_baseline import git

    root = _copy(tmp_path, SHARED)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "start")
    forward = root / "pkg" / "forward.py"
    forward.write_text(forward.read_text().replace("# expect: KL126", "# changed"))
    result = subprocess.run([sys.executable, "-m", "kernelint", "check", "--select", "KL126", "--no-cache",
                             "--format", "json", "--diff", "HEAD", "."], cwd=root, capture_output=True, text=True)
    (finding,) = json.loads(result.stdout)
    assert (finding["path"], [r["path"] for r in finding["related"]]) == ("pkg/backward.py", ["pkg/forward.py"])


def test_one_kernel_parameter_launched_from_two_modules_is_one_finding(tmp_path):
    """KL118: `token_sum_kernel`'s constexpr `N_TOKENS` fed a runtime size in two modules is one
    cause (the kernel's parameter); `token_max_kernel`'s parameter of the same name is another."""
    root = _copy(tmp_path, "KL118_one_kernel_launched_from_two_modules")
    files = sorted(str(p) for p in root.rglob("*.py"))
    findings = runner.check_groups({Settings(select=("KL118",)): files}, jobs=1, use_cache=False)
    assert [(_rel(root, f.path), f.line, [(_rel(root, s.path), s.line) for s in f.related]) for f in findings] == [
        ("pkg/backward.py", 10, [("pkg/forward.py", 11)]), ("pkg/backward.py", 18, [])]
