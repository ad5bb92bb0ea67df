"""``min_gpus`` in pair.toml: a pair that needs several GPUs in one machine (KL147: tensors on a
second GPU while the first is current) is skipped, with the reason, on a machine with fewer."""
from __future__ import annotations

import pytest
from test_manifests import GOOD_TOML, make_pair, problems_of

from kernelint.prove.cli import _skip_reason
from kernelint.prove.manifest import load_pair
from kernelint.prove.runner import Options

TWO_GPUS = GOOD_TOML.replace('claim = ', 'min_gpus = 2\nclaim = ', 1)


def _environment(gpus: int | None) -> dict:
    env = {"importable": {"torch": True, "triton": True}}
    if gpus is not None:
        env["gpu_count"] = gpus
    return env


def test_manifest_reads_min_gpus_and_defaults_to_one(tmp_path):
    assert load_pair(make_pair(tmp_path / "a", toml=TWO_GPUS)).min_gpus == 2
    assert load_pair(make_pair(tmp_path / "b")).min_gpus == 1


@pytest.mark.parametrize("value", ["0", "-1", "1.5", '"two"', "true"])
def test_manifest_refuses_a_gpu_count_below_one_or_not_an_integer(tmp_path, value):
    assert "min_gpus" in problems_of(tmp_path, toml=GOOD_TOML.replace('claim = ', f'min_gpus = {value}\nclaim = ', 1))


def test_a_two_gpu_pair_is_skipped_on_one_gpu_and_runs_on_two(tmp_path):
    pair = load_pair(make_pair(tmp_path, toml=TWO_GPUS))
    assert _skip_reason(pair, Options(), _environment(1)) == "needs 2 GPUs in one machine, this one has 1"
    assert _skip_reason(pair, Options(), _environment(None)) == "needs 2 GPUs in one machine, this one has 0"
    assert _skip_reason(pair, Options(), _environment(2)) is None
    assert _skip_reason(pair, Options(), _environment(8)) is None


def test_a_one_gpu_pair_is_not_judged_by_the_gpu_count(tmp_path):
    pair = load_pair(make_pair(tmp_path))
    assert _skip_reason(pair, Options(), _environment(None)) is None
    assert _skip_reason(pair, Options(), _environment(1)) is None


def test_the_kl147_pair_declares_two_gpus():
    from conftest import pair_dirs

    (directory,) = [d for d in pair_dirs() if d.name.startswith("KL147_")]
    assert load_pair(directory).min_gpus == 2
