"""Each reference pair: kernelint reports exactly the marked lines of bad.py, nothing in good.py."""
from __future__ import annotations

import ast
import difflib
import json
import subprocess
import sys

import pytest

from conftest import PAIRS_ROOT, pair_dirs
from kernelint.evidence import record_name
from kernelint.prove.manifest import tomllib
from expectations import expected_findings, read, reported
from kernelint.rules import find_rule

PAIRS = pair_dirs()


def _code(pair) -> str:
    return pair.name.split("_", 1)[0]


def _pair_id(pair) -> str:
    """The folder's name for the rule's pair in its home DSL; ``<dsl>/<folder>`` for a further pair
    of the rule in another DSL (``cutile/KL126_grid_axis_over_65535``)."""
    home = record_name(_code(pair), pair.parent.name) == _code(pair)
    return pair.name if home else f"{pair.parent.name}/{pair.name}"


IDS = [_pair_id(p) for p in PAIRS]


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_bad_reports_exactly_the_marked_lines(pair):
    source = read(pair / "bad.py")
    expected = expected_findings(source)
    assert expected, f"{pair.name}/bad.py marks no expected finding"
    assert _code(pair) in {code for _, code in expected}
    assert reported(source, _code(pair)) == expected


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_good_is_clean(pair):
    source = read(pair / "good.py")
    assert not expected_findings(source)
    assert reported(source, _code(pair)) == set()


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_pair_folder_names_a_real_rule(pair):
    """A rule's pair lives under its home DSL; further pairs under other DSLs the rule reads
    (KL126 reads `ct.launch` too: `cutile/KL126_grid_axis_over_65535`), never one it does not."""
    code, name = pair.name.split("_", 1)
    rule = find_rule(code)
    assert rule is not None, f"{pair.name}: no rule {code}"
    assert rule.name == name.replace("_", "-")
    assert pair.parent.name in rule.dsls(), f"{_pair_id(pair)}: {code} reads {', '.join(rule.dsls())} only"
    assert (PAIRS_ROOT / rule.dsl / pair.name).is_dir(), f"{_pair_id(pair)}: {code} has no pair in its home DSL"


def test_only_the_home_pair_is_named_by_its_code_alone():
    homes = [_pair_id(p) for p in PAIRS if "/" not in _pair_id(p)]
    assert len(homes) == len({_code(p) for p in PAIRS}) == len(set(homes))
    assert "cutile/KL126_grid_axis_over_65535" in IDS


#: Code lines (docstrings, comments and blank lines aside) that good.py changes outside the
#: statements bad.py marks with ``# expect:``, per pair, and why: the fix of the flagged construct
#: sometimes lives where the value is made or the kernel is declared. The count must match
#: exactly, so a pair that starts to differ elsewhere (a smaller problem, another tile, another
#: algorithm) fails until the difference is declared here, and a stale entry fails too.
DECLARED_CHANGES = {
    "KL106_descriptor_without_allocator": (3, "good defines an allocator and sets it with triton.set_allocator"),
    "KL115_autotune_inplace_without_restore": (1, "restore_value in the autotune decorator"),
    "KL118_constexpr_from_runtime_size": (2, "the kernel's n_tokens parameter loses tl.constexpr"),
    "KL119_descriptor_block_shape_frozen": (5, "a pre_hook that sets the block shapes, added to the configs"),
    "KL123_runtime_value_in_shape": (2, "BLOCK: tl.constexpr in the kernel signature"),
    "KL125_flat_index_noncontiguous": (1, "x = x.contiguous() before the launch"),
    "KL126_grid_axis_over_65535": (4, "the kernel reads the batch x head index from axis 0, as the good grid puts it"),
    "cutile/KL126_grid_axis_over_65535": (4, "the kernel's two ct.bid lines read the axes the other way round"),
    "KL128_descriptor_stride_unaligned": (4, "rows padded to a 16-byte stride before the launch"),
    "KL132_global_not_constexpr_in_jit": (2, "the module constant declared tl.constexpr(4)"),
    "KL134_plain_function_called_from_jit": (1, "@triton.jit on the helper"),
    "KL138_low_precision_accumulator": (2, "the accumulator created as tl.float32 instead of the input's element type"),
    "KL406_cutile_loop_variable_after_loop": (1, "the last tile made before the loop"),
    "KL201_raw_2d_load_dynamic_strides": (6, "tensor descriptors built before the K loop, no pointer advance in it"),
    "KL202_fixed_tiles_no_autotune": (6, "the @triton.autotune decorator (its configs include bad's fixed tile)"),
    "KL204_broadcast_dot": (6, "one problem per program: 2D output addressing and batch = 1"),
    "KL205_trans_in_k_loop": (2, "B pointers laid out K-major, so the loop needs no tl.trans"),
    "KL208_split_dim_reshape": (2, "the launch passes q and a head_dim // 2 offset, not the reshaped halves"),
    "KL211_missing_alignment_hints": (4, "tl.multiple_of hints on the pointers and the size"),
    "KL212_k_loop_offset_recompute": (4, "pointers built once before the K loop and advanced by BLOCK_K in it"),
    "KL302_mbarrier_phase_not_flipped": (2, "the phase flip on ring wrap"),
    "KL307_cp_async_wait_immediately": (5, "the first tile prefetched before the loop, the next one inside it"),
    "KL309_setmaxregister_not_multiple_of_8": (2, "the register count the flagged call reads (236 -> 232)"),
    "KL310_tmem_over_512_columns": (2, "the column count the flagged allocation reads"),
    "KL312_low_precision_accumulation": (2, "the accumulator initialised in fp32"),
    "KL314_tmem_alloc_invalid": (2, "the column count the flagged allocation reads"),
    "KL316_predicate_layout_mismatch": (4, "the coordinates partitioned by the data's tiled copy, not a second one"),
}

_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If,
             ast.With, ast.AsyncWith, ast.Try)


def flagged_spans(source: str) -> list[tuple[int, int]]:
    """Line spans of the statements that hold bad.py's ``# expect:`` lines: the smallest simple
    statement around each, or the header of a compound one (not its body)."""
    tree = ast.parse(source)
    spans = []
    for line, _ in expected_findings(source):
        around = [node for node in ast.walk(tree) if isinstance(node, ast.stmt)
                  and node.lineno <= line <= node.end_lineno
                  and not (isinstance(node, _COMPOUND) and node.body and line >= node.body[0].lineno)]
        node = min(around, key=lambda n: n.end_lineno - n.lineno, default=None)
        spans.append((node.lineno, node.end_lineno) if node else (line, line))
    return spans


def prose_lines(source: str) -> set[int]:
    """Lines that are docstrings, comments or blank: they say what differs, they run nothing."""
    lines = {n for n, text in enumerate(source.splitlines(), 1) if not text.strip() or text.strip().startswith("#")}
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            lines |= set(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def changes_outside_flagged(bad: str, good: str) -> list[str]:
    """Code lines removed from bad.py or added in good.py away from the flagged statements."""
    spans = flagged_spans(bad)
    bad_lines, good_lines = bad.splitlines(), good.splitlines()
    bad_prose, good_prose = prose_lines(bad), prose_lines(good)
    outside = []
    matcher = difflib.SequenceMatcher(None, bad_lines, good_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        first, last = (i1 + 1, i2) if i2 > i1 else (i1, i1 + 1)  # an insertion touches the lines around it
        if any(first <= end and last >= start for start, end in spans):
            continue
        outside += [f"-{bad_lines[k]}" for k in range(i1, i2) if k + 1 not in bad_prose]
        outside += [f"+{good_lines[k]}" for k in range(j1, j2) if k + 1 not in good_prose]
    return outside


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_bad_and_good_differ_only_at_the_flagged_construct(pair):
    bad, good = read(pair / "bad.py"), read(pair / "good.py")
    assert bad != good, "bad.py and good.py are identical"
    outside = changes_outside_flagged(bad, good)
    declared, why = DECLARED_CHANGES.get(_pair_id(pair), (0, "nothing declared"))
    assert len(outside) == declared, (f"{pair.name}: {len(outside)} changed code lines away from the flagged "
                                      f"statements, {declared} declared ({why}):\n" + "\n".join(outside))


def test_every_declared_change_names_a_pair():
    assert set(DECLARED_CHANGES) <= set(IDS)


def test_a_change_away_from_the_flagged_statement_is_counted():
    bad = "x = 1\ny = 2\nf(x, BLOCK=64)  # expect: KL202\n"
    assert changes_outside_flagged(bad, bad.replace("BLOCK=64", "BLOCK=128")) == []
    assert changes_outside_flagged(bad, bad.replace("y = 2", "y = 3")) == ["-y = 2", "+y = 3"]
    assert changes_outside_flagged(bad, '"""Now fixed."""\n' + bad.replace("x = 1", "# one\nx = 1")) == []


@pytest.mark.parametrize("pair", PAIRS, ids=IDS)
def test_pair_folder_turns_its_rule_on(pair):
    """Its kernelint.toml adds the pair's rule (off by default or not), so that the README's
    `kernelint check reference_kernels` reports every marked line."""
    config = pair / "kernelint.toml"
    assert config.is_file(), (f"{pair.name}: no kernelint.toml; add one with "
                              f'extend-select = ["{_code(pair)}"] (python -m kernelint.scaffold writes it)')
    assert tomllib.loads(read(config)) == {"extend-select": [_code(pair)]}


def _marked_sites() -> set[tuple[str, int, str]]:
    sites = set()
    for pair in PAIRS:
        for side in ("bad.py", "good.py"):
            path = (pair / side).relative_to(PAIRS_ROOT.parent).as_posix()
            sites |= {(path, line, code) for line, code in expected_findings(read(pair / side))}
    return sites


def test_the_readme_first_run_reports_exactly_the_marked_lines():
    """`kernelint check reference_kernels`, the README's first command, as a user runs it: the
    real command, in the repository root, with the repository's own configuration."""
    readme = read(PAIRS_ROOT.parent / "README.md")
    assert "kernelint check reference_kernels\n" in readme
    done = subprocess.run([sys.executable, "-m", "kernelint", "check", "reference_kernels", "--no-cache",
                           "--format", "json"], cwd=PAIRS_ROOT.parent, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    reported = {(f["path"], f["line"], f["code"]) for f in findings}
    reported |= {(f["path"], site["line"], f["code"]) for f in findings for site in f.get("related", [])}
    marked = _marked_sites()
    assert len(marked) >= len(PAIRS), "fewer markers than pairs: the marker reader is broken"
    assert sorted(marked - reported) == [], "marked lines the command does not report"
    assert sorted(reported - marked) == [], "findings on lines without a marker (good.py included)"
