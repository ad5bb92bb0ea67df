"""A rule may have pairs in several DSLs (KL126: triton/ and cutile/): `kernelint prove` selects
them by code (all of the rule's pairs) or by record name (one), and writes each pair's record
under its own name, so neither replaces the other."""
from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from conftest import PAIRS_ROOT
from kernelint.evidence import record_name
from kernelint.prove import cli


def _folders(root: Path) -> None:
    for dsl, name in (("triton", "KL126_grid_axis_over_65535"), ("cutile", "KL126_grid_axis_over_65535"),
                      ("triton", "KL127_view_reorders_elements")):
        (root / dsl / name).mkdir(parents=True)
        (root / dsl / name / "pair.toml").write_text("", encoding="utf-8")


def test_record_names():
    assert record_name("KL126", "triton") == "KL126"
    assert record_name("KL126", "cutile") == "KL126-cutile"
    assert record_name("KL401", "cutile") == "KL401"
    assert record_name("KL301", None) == "KL301"
    assert record_name("KL901", "triton") == "KL901"  # a code of no hundred's DSL: named by its code


def test_a_code_selects_every_pair_of_the_rule_and_a_record_name_one(tmp_path):
    _folders(tmp_path)
    chosen = cli._select(tmp_path, ["KL126"])
    assert sorted(f"{d.parent.name}/{d.name}" for d in chosen) == [
        "cutile/KL126_grid_axis_over_65535", "triton/KL126_grid_axis_over_65535"]
    assert [d.parent.name for d in cli._select(tmp_path, ["KL126-cutile"])] == ["cutile"]
    assert len(cli._select(tmp_path, ["grid-axis-over-65535"])) == 2
    with pytest.raises(cli.ProveUsageError, match="KL126-cute"):
        cli._select(tmp_path, ["KL126-cute"])


def test_the_committed_layout_has_both_of_kl126s_pairs():
    chosen = cli._select(PAIRS_ROOT, ["KL126"])
    assert {d.parent.name for d in chosen} == {"triton", "cutile"}


def test_each_pair_writes_its_own_record(tmp_path):
    args = argparse.Namespace(json=str(tmp_path / "run.json"), evidence_dir=str(tmp_path / "evidence"))
    writer = cli._Writer(args, {"environment": {}, "date": "d", "command": "c", "kernelint": "k"})
    for dsl in ("cutile", "triton"):
        writer.add({"code": "KL126", "name": "grid-axis-over-65535", "dsl": dsl, "verdict": "reproduced",
                    "outcome": dsl})
    assert sorted(p.name for p in (tmp_path / "evidence").iterdir()) == ["KL126-cutile.json", "KL126.json"]
    assert '"outcome": "cutile"' in (tmp_path / "evidence" / "KL126-cutile.json").read_text(encoding="utf-8")


def test_progress_names_a_further_pair_by_its_dsl():
    stream = io.StringIO()
    progress = cli._Progress(2, stream=stream, tty=False)
    for dsl in ("triton", "cutile"):
        progress.pair_done({"code": "KL126", "name": "grid-axis-over-65535", "dsl": dsl, "outcome": "o",
                            "verdict": "reproduced"})
    progress.close()
    assert stream.getvalue().splitlines() == ["[1/2] KL126 grid-axis-over-65535: o (reproduced)",
                                              "[2/2] KL126 [cutile] grid-axis-over-65535: o (reproduced)"]
