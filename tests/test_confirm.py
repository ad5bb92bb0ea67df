"""``kernelint confirm``: the recipe contract, harnesses generated for a fixture project (compiled,
not run: CI has no GPU), and one harness run end to end under Triton's interpreter."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kernelint.confirm.cli import _spec_of
from kernelint.confirm.entry import LocateError, locate
from kernelint.confirm.generate import apply_settings, generate
from kernelint.confirm.recipes import DECLARED, RECIPES, NoRecipe, recipe_for
from kernelint.rules import all_rules

PROJECT = Path(__file__).parent / "confirm_projects" / "recipes" / "confirm_recipes"


def test_every_crash_and_numerics_rule_declares_a_recipe_or_why_not():
    for rule in all_rules():
        if rule.evidence_class not in ("crash", "numerics"):
            continue
        declared = recipe_for(rule.code)
        assert declared is not None, f"{rule.code} ({rule.evidence_class}) declares no confirm recipe in DECLARED"
        if isinstance(declared, NoRecipe):
            assert len(declared.why) > 20, f"{rule.code}: say why there is no recipe"
    assert all(isinstance(d, NoRecipe) or d in RECIPES for d in DECLARED.values())


def test_every_recipe_is_used_by_a_rule():
    used = {d for d in DECLARED.values() if isinstance(d, str)}
    assert used == set(RECIPES)


def _harness(name: str, line: int, code: str, settings=()):
    target = locate(PROJECT / name, line, code)
    apply_settings(target, list(settings))
    harness = generate(target)
    compile(harness.source, f"{code}-harness.py", "exec")
    return target, harness, _spec(harness.source)


def _spec(source: str) -> dict:
    tree = ast.parse(source)
    return next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                and n.targets[0].id == "SPEC")


def test_grid_axis_harness_sizes_the_flagged_axis_at_65536_with_a_control_at_65535():
    target, harness, spec = _harness("grid.py", 20, "KL126")
    assert harness.problems == [] and harness.recipe == "grid-axis-65536"
    assert target.entry == "chunk_cumsum" and spec["entry"]["module"] == "confirm_recipes.grid"
    assert spec["sizes"]["B"] * spec["sizes"]["H"] == 65536
    assert spec["control_sizes"]["B"] * spec["control_sizes"]["H"] == 65535
    assert "chunk_size" in " ".join(harness.assumptions)
    # `w`'s shape is not shown by the entry: it is read from the project's call in usage.py,
    # whose `raw` the entry unpacks as (B, T, H)
    w = next(p for p in target.params if p.name == "w")
    assert w.dims == ("H",) and w.dtypes == ("float32",) and "usage.py" in w.source


def test_int32_harness_grows_the_tensor_past_2_31_and_fixes_the_index_where_it_is_defined():
    _, harness, spec = _harness("rows.py", 11, "KL103")
    assert harness.problems == []
    sizes = spec["sizes"]
    assert sizes["n_rows"] * sizes["n_cols"] > 2**31
    assert spec["fix"] == [{"path": str((PROJECT / "rows.py").resolve()), "line": 8, "old": "tl.program_id(0)",
                            "new": "tl.program_id(0).to(tl.int64)"}]
    assert spec["estimated_bytes"] > 2**32  # budget-checked before allocating


def test_int32_fix_follows_the_index_to_the_program_id_it_is_computed_from():
    # row = n_rows - 1 - pid; pid = tl.program_id(0): widening pid fixes both products of row
    _, harness, spec = _harness("chained.py", 12, "KL103")
    assert [(e["line"], e["old"], e["new"]) for e in spec["fix"]] == [
        (8, "tl.program_id(0)", "tl.program_id(0).to(tl.int64)")]


def test_sizes_take_the_branch_that_reaches_the_flagged_launch():
    # `if n_cols <= 1024: narrow_kernel ... else: wide_kernel` (flagged): n_cols must pass 1024,
    # named through x2d = x.reshape(-1, x.shape[-1]); n_rows, n_cols = x2d.shape
    target, harness, spec = _harness("branched.py", 20, "KL103")
    assert target.params[0].dims == ("n_rows", "n_cols") and harness.problems == []
    sizes = spec["sizes"]
    assert sizes["n_cols"] > 1024 and sizes["n_rows"] * sizes["n_cols"] > 2**31


def test_a_list_of_tensors_the_entry_indexes_is_built_as_a_list():
    # A = group[i]; M, K = A.shape: `group` is a list of (M, K) tensors
    target, harness, spec = _harness("grouped.py", 10, "KL120")
    assert (target.params[0].kind, target.params[0].dims) == ("tensor-list", ("M", "K"))
    assert harness.problems == [] and "for _ in range(4)" in harness.source


def test_an_int32_table_finding_is_followed_to_the_launch_that_receives_the_table():
    # KL102 flags the host table (torch.tensor(..., dtype=torch.int32)); the kernel is the one it is
    # passed to, in another module. Here the entry's tensors are a list read only through a
    # comprehension: the input cannot be built, and the command says why.
    project = Path(__file__).parent / "projects" / "KL102_wrapper_imports_the_kernel" / "pkg"
    target = locate(project / "grouped.py", 8, "KL102")
    assert target.kernel == "grouped_copy_kernel" and target.entry == "grouped_copy"
    assert generate(target).problems


def test_padded_load_harness_uses_lengths_that_are_not_multiples_of_the_block():
    _, harness, spec = _harness("padded.py", 12, "KL120")
    assert harness.recipe == "length-not-multiple-of-block" and harness.problems == []
    K, M = spec["sizes"]["K"], spec["sizes"]["M"]
    assert K & (K - 1)  # not a power of two: next_power_of_2(K) lanes pass the row's end
    assert M % 16


def test_autotune_harness_calls_the_entry_twice_on_small_inputs():
    # (Triton's autotuner needs a GPU driver: under the interpreter it fails, so this recipe runs on a GPU.)
    target, harness, spec = _harness("tuned.py", 16, "KL115")
    assert harness.recipe == "second-call-after-autotune" and harness.problems == []
    assert spec["sizes"] == {"n": 64} and spec["fix"] == []
    # `b` is only passed on; the kernel's heuristics test it against None, so None is an input
    bias = next(p for p in target.params if p.name == "b")
    assert bias.kind == "none" and "heuristics" in bias.source


def test_a_parameter_whose_type_the_source_does_not_show_cannot_be_built_until_set(tmp_path):
    module = tmp_path / "pkg" / "norm.py"
    module.parent.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname='p'\nversion='0'\n")
    (module.parent / "__init__.py").write_text("")
    text = (PROJECT / "rows.py").read_text().replace("def scale(x: torch.Tensor)", "def scale(x: torch.Tensor, eps)")
    module.write_text(text)
    target = locate(module, 11, "KL103")
    assert generate(target).problems
    apply_settings(target, ["eps=1e-6"])
    assert generate(target).problems == []


def test_a_number_a_caller_forwards_from_its_own_default_is_used(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname='p'\nversion='0'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    text = (PROJECT / "rows.py").read_text().replace("def scale(x: torch.Tensor)", "def scale(x: torch.Tensor, eps)")
    (package / "norm.py").write_text(text)
    (package / "layer.py").write_text("from pkg.norm import scale\n\n\ndef apply(x, eps=1e-5):\n"
                                      "    return scale(x, eps)\n")
    target = locate(package / "norm.py", 11, "KL103")
    eps = next(p for p in target.params if p.name == "eps")
    assert (eps.kind, eps.value) == ("literal", "1e-05") and "layer.py:5" in eps.source
    assert generate(target).problems == []


def test_a_leading_starred_unpacking_names_the_last_dimensions_of_a_tensor_of_any_rank(tmp_path):
    # Liger's softmax: `*batch, n_cols = x.shape; x2d = x.contiguous().view(-1, n_cols)`: x is
    # built with one leading dimension and the named last one, grown past 2^31 by its rows
    (tmp_path / "pyproject.toml").write_text("[project]\nname='p'\nversion='0'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    text = (PROJECT / "rows.py").read_text()
    flattened = text.replace("    n_rows, n_cols = x.shape\n    y = torch.empty_like(x)\n",
                             "    *batch, n_cols = x.shape\n    x = x.contiguous().view(-1, n_cols)\n"
                             "    n_rows = x.shape[0]\n    y = torch.empty_like(x)\n")
    assert flattened != text
    (package / "norm.py").write_text(flattened)
    target = locate(package / "norm.py", 11, "KL103")
    harness = generate(target)
    assert (target.params[0].kind, target.params[0].dims) == ("tensor", ("x.d0", "n_cols"))
    assert harness.problems == []
    sizes = _spec(harness.source)["sizes"]
    assert sizes["x.d0"] * sizes["n_cols"] > 2**31 and sizes["n_cols"] == 4096


def test_a_package_with_its_own_pyproject_still_imports_from_the_folder_above(tmp_path):
    # flash-attention keeps a pyproject.toml inside flash_attn/ (its CuTe build): the harness must
    # import flash_attn.ops..., not ops...
    (tmp_path / "setup.py").write_text("")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "pyproject.toml").write_text("[project]\nname='sub'\nversion='0'\n")
    (package / "norm.py").write_text((PROJECT / "rows.py").read_text())
    target = locate(package / "norm.py", 11, "KL103")
    assert target.root == tmp_path.resolve() and target.module_name(target.entry_path) == "pkg.norm"


def test_int32_sizes_keep_grid_axes_1_and_2_within_65535():
    # mamba's state passing: states (batch, nchunks, nheads, dim) launched on (cdiv(dim, B), batch,
    # nheads). 524,544 rows of 4,096 would put batch past 65,535 on axis 1 (the launch fails in both
    # runs, as it did on the H200); the last dimension is widened instead.
    from kernelint.confirm.entry import Param, Target
    from kernelint.confirm.sizes import recipe_sizes

    target = Target(code="KL103", path=PROJECT / "rows.py", line=1, message="", kernel="k",
                    kernel_path=PROJECT / "rows.py", root=None,
                    params=[Param("states", "tensor", ("batch", "nchunks", "nheads", "dim"))],
                    grid_axes=["triton.cdiv(dim, META['BLOCK_SIZE'])", "batch", "nheads"])
    sizes, _, problems = recipe_sizes("elements-past-int32", target)
    assert problems == [] and sizes["batch"] < 65536
    assert sizes["batch"] * sizes["nchunks"] * sizes["nheads"] * sizes["dim"] > 2**31
    target.grid_axes = ["triton.cdiv(dim, META['BLOCK_SIZE'])", "batch * nchunks", "nheads"]
    sizes, _, problems = recipe_sizes("elements-past-int32", target)
    assert problems == [] and sizes["batch"] * sizes["nchunks"] < 65536


def test_the_entrys_literal_defaults_are_passed_by_name(tmp_path):
    # a torch.library op's schema may carry no defaults: every argument is passed
    (tmp_path / "pyproject.toml").write_text("[project]\nname='p'\nversion='0'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    text = (PROJECT / "rows.py").read_text().replace("def scale(x: torch.Tensor)",
                                                     "def scale(x: torch.Tensor, eps=1e-6, dtype=torch.float32)")
    (package / "norm.py").write_text(text)
    harness = generate(locate(package / "norm.py", 11, "KL103"))
    assert harness.problems == []
    assert "'eps': 1e-06,  # the entry's default" in harness.source and "'dtype'" not in harness.source
    compile(harness.source, "harness.py", "exec")


def test_a_tensor_read_only_for_its_last_size_beside_an_unpacked_one_is_assumed_alike(tmp_path):
    # fla's `B, T, H, K, V = *k.shape, v.shape[-1]`: v is built as (B, T, H, V), and the harness says so
    (tmp_path / "pyproject.toml").write_text("[project]\nname='p'\nversion='0'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    text = (PROJECT / "grid.py").read_text()
    changed = text.replace("def chunk_cumsum(g: torch.Tensor, w: torch.Tensor, chunk_size: int) -> torch.Tensor:\n"
                           "    B, T, H = g.shape\n",
                           "def chunk_cumsum(g: torch.Tensor, w, v, chunk_size: int) -> torch.Tensor:\n"
                           "    B, T, H, V = *g.shape, v.shape[-1]\n    assert w.shape == (H,)\n")
    assert changed != text
    (package / "grid.py").write_text(changed)
    target = locate(package / "grid.py", 21, "KL126")
    harness = generate(target)
    v = next(p for p in target.params if p.name == "v")
    assert v.dims == ("B", "T", "V") and harness.problems == []
    assert any("`v` is (B, T, V)" in a for a in harness.assumptions)
    apply_settings(target, ["v=shape:(B,V)"])
    assert not any("`v` is" in a for a in generate(target).assumptions)


def test_no_finding_at_the_line_is_an_error():
    with pytest.raises(LocateError):
        locate(PROJECT / "rows.py", 5, "KL103")


def test_dry_run_writes_the_harness_without_running_it(tmp_path):
    done = subprocess.run([sys.executable, "-m", "kernelint", "confirm", f"{PROJECT / 'grid.py'}:20:KL126",
                           "--dry-run", "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    script = tmp_path / "KL126-grid-20" / "harness.py"
    compile(script.read_text(), str(script), "exec")
    assert _spec_of(script)["recipe"] == "grid-axis-65536"
    assert not (tmp_path / "KL126-grid-20" / "runs").exists()


@pytest.mark.full  # torch and Triton's interpreter
def test_padded_load_is_confirmed_end_to_end_under_the_interpreter(tmp_path):
    done = subprocess.run([sys.executable, "-m", "kernelint", "confirm", f"{PROJECT / 'padded.py'}:12:KL120",
                           "--interpret", "--out", str(tmp_path), "--timeout", "300"],
                          capture_output=True, text=True, timeout=900)
    record = json.loads((tmp_path / "KL120-padded-12" / "runs" / "verdict.json").read_text())
    assert record["runs"]["as-is"]["outcome"] == "ok" and record["runs"]["control"]["outcome"] == "ok", done.stdout
    assert record["verdict"] == "confirmed", record
    assert done.returncode == 0


@pytest.mark.parametrize("form", ["json", "sarif"])
def test_from_report_takes_the_finding_from_a_json_or_sarif_report(tmp_path, form):
    report = tmp_path / f"report.{form}"
    done = subprocess.run([sys.executable, "-m", "kernelint", "check", str(PROJECT / "grid.py"), "--select", "KL126",
                           "--no-cache", "--format", form], capture_output=True, text=True, timeout=120)
    report.write_text(done.stdout)
    done = subprocess.run([sys.executable, "-m", "kernelint", "confirm", "--from", str(report), "--dry-run",
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _spec_of(tmp_path / "out" / "KL126-grid-20" / "harness.py")["finding"]["line"] == 20


@pytest.mark.full  # torch and Triton's interpreter
def test_the_fixed_run_imports_a_patched_copy_and_leaves_the_checkout_alone(tmp_path):
    """The KL103 harness's fixed variant, its sizes cut so the interpreter can run it: the copy
    holds the int64 edit, the project's file does not, and the run completes from the copy."""
    _, harness, spec = _harness("rows.py", 11, "KL103")
    small = harness.source.replace(repr(spec["sizes"]), repr({"n_rows": 8, "n_cols": 16}))
    small = small.replace(f"'estimated_bytes': {spec['estimated_bytes']}", "'estimated_bytes': 0")
    assert small != harness.source
    script = tmp_path / "harness.py"
    script.write_text(small)
    before = (PROJECT / "rows.py").read_text()
    env = {**__import__("os").environ, "TRITON_INTERPRET": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    for variant in ("as-is", "fixed"):
        done = subprocess.run([sys.executable, str(script), "run", "--variant", variant, "--out", str(tmp_path / "runs")],
                              capture_output=True, text=True, timeout=600, env=env)
        record = json.loads((tmp_path / "runs" / f"{variant}.json").read_text())
        assert record["outcome"] == "ok", done.stdout + done.stderr
    assert (PROJECT / "rows.py").read_text() == before
    done = subprocess.run([sys.executable, str(script), "judge", "--out", str(tmp_path / "runs")],
                          capture_output=True, text=True, timeout=600, env=env)
    verdict = json.loads(done.stdout.strip().splitlines()[-1])
    # 8 x 16 elements cannot overflow: the as-is and fixed runs agree
    assert verdict["verdict"] == "not reproduced" and verdict["max_abs_diff_last_rows"] == 0


@pytest.mark.full  # torch and Triton's interpreter
def test_the_mask_recipe_does_not_confirm_the_masked_kernel(tmp_path):
    """The negative control: the padded-load harness pointed at a copy of the project whose load is
    masked (the fix) runs clean with NaN and zero guards, and the judge says not reproduced."""
    import shutil

    _, harness, spec = _harness("padded.py", 12, "KL120")
    root = Path(spec["project_root"])
    copy = tmp_path / "project"
    shutil.copytree(root, copy)
    fixed = copy / "confirm_recipes" / "padded.py"
    text = fixed.read_text()
    assert text.count("tl.load(g_ptr + row * K + offs)") == 1
    fixed.write_text(text.replace("tl.load(g_ptr + row * K + offs)", "tl.load(g_ptr + row * K + offs, mask=mask, other=0.0)"))
    script = tmp_path / "harness.py"
    script.write_text(harness.source.replace(repr(str(root)), repr(str(copy)))
                      .replace(repr(str((root / "confirm_recipes" / "padded.py"))), repr(str(fixed))))
    from kernelint.confirm.run import confirm

    record = confirm(script, _spec_of(script), tmp_path / "runs", 300.0, 600.0, interpret=True)
    assert record["runs"]["as-is"]["outcome"] == "ok" and record["runs"]["control"]["outcome"] == "ok"
    assert record["verdict"] == "not reproduced", record


def test_the_package_ships_in_the_wheel():
    """pyproject lists packages by name: a GPU machine installs kernelint with pip and needs confirm."""
    text = (Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"kernelint.confirm"' in text
