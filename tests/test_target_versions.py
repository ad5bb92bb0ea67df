"""Target releases (issue 22): reading a project's pins, the range rule, the settings, and the
fixtures that give different findings under two target releases."""
from __future__ import annotations

import pytest

from fixture_files import all_fixtures
from kernelint.config import ConfigError, read_settings
from kernelint.model.dsl import triton
from kernelint.model.dsl.versioning import DEPRECATED, MISSING, OK, status_in
from kernelint.versions import project_pins, split_requirement, targets_for, version_of

import re

from kernelint.findings import Severity

_INFO_UNDER = re.compile(r"^#\s*kernelint-info-under:\s*(.+)$", re.M)
TWO_WAY = [f for f in all_fixtures() if f.silent_under()]
INFO_UNDER = [f for f in all_fixtures() if _INFO_UNDER.search(f.source())]
_MESSAGE_UNDER = re.compile(r"^#\s*kernelint-message-under:\s*(.+)$", re.M)
MESSAGE_UNDER = [f for f in all_fixtures() if _MESSAGE_UNDER.search(f.source())]


@pytest.mark.parametrize("fixture", TWO_WAY, ids=[f.id for f in TWO_WAY])
def test_one_file_two_targets(fixture):
    """The fixture reports under its own target and reports nothing under the other one."""
    assert {f.code for f in fixture.findings()} == {fixture.code}
    for versions in fixture.silent_under():
        assert [f for f in fixture.findings(versions) if f.code == fixture.code] == []


@pytest.mark.parametrize("fixture", INFO_UNDER, ids=[f.id for f in INFO_UNDER])
def test_one_file_errors_under_one_target_and_informs_under_another(fixture):
    """``# kernelint-info-under: triton-version=X``: the same sites, every one info under X."""
    own = [f for f in fixture.findings() if f.code == fixture.code]
    other = [f for f in fixture.findings(_INFO_UNDER.search(fixture.source()).group(1)) if f.code == fixture.code]
    assert own and {f.severity for f in own} != {Severity.INFO}
    assert [f.line for f in other] == [f.line for f in own]
    assert {f.severity for f in other} == {Severity.INFO}


@pytest.mark.parametrize("fixture", MESSAGE_UNDER, ids=[f.id for f in MESSAGE_UNDER])
def test_one_file_another_effect_under_another_target(fixture):
    """``# kernelint-message-under: triton-version=X``: the same sites, each with another message."""
    own = [f for f in fixture.findings() if f.code == fixture.code]
    other = [f for f in fixture.findings(_MESSAGE_UNDER.search(fixture.source()).group(1)) if f.code == fixture.code]
    assert own and [f.line for f in other] == [f.line for f in own]
    assert all(a.message != b.message for a, b in zip(own, other))


def test_every_version_rule_has_a_two_way_fixture():
    codes = {f.code for f in TWO_WAY + INFO_UNDER + MESSAGE_UNDER}
    assert {"KL106", "KL116", "KL131", "KL132", "KL133", "KL305", "KL319", "KL406"} <= codes


@pytest.mark.parametrize("requirement, version, how", [
    ("triton==3.3.1", (3, 3, 1), "exact pin"),
    ("triton>=3.2,<3.4", (3, 3, 1), "the newest allowed release kernelint knows"),
    ("triton ~= 3.2.0", (3, 2), "the newest allowed release kernelint knows"),
    ("triton==3.3.*", (3, 3, 1), "the newest allowed release kernelint knows"),
    ("triton<2", (1, 1, 1), "the newest allowed release kernelint knows"),
    ("triton>=9.0", (9,), "its lower bound (no release kernelint knows is allowed)"),
    ("pytorch-triton==3.1.0+cf34004b8a", (3, 1), "exact pin"),
    ("triton[tests]>=3.5 ; python_version>'3.9'", (3, 9), "the newest allowed release kernelint knows"),
])
def test_a_requirement_means_one_version(requirement, version, how):
    _, clauses = split_requirement(requirement)
    assert version_of(clauses, triton.RELEASES) == (version, how)


def test_a_bare_name_or_a_url_pins_nothing():
    assert version_of(split_requirement("triton")[1], triton.RELEASES) is None
    assert split_requirement("triton @ https://example.com/triton.whl") is None
    assert split_requirement("-r other.txt") is None


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_pins_are_read_without_running_anything(tmp_path):
    write(tmp_path, {
        "setup.py": "import os\nos.system('exit 1')\nREQ = ['triton==3.2.0']\n"
                    "setup(install_requires=REQ, extras_require={'cute': ['nvidia-cutlass-dsl>=4.3,<4.5']})\n",
        "environment.yml": "dependencies:\n  - python=3.11\n  - pip:\n    - cuda-tile==1.2.0\n",
        "pkg/k.py": "import triton\n",
    })
    targets = targets_for(tmp_path / "pkg" / "k.py")
    assert (targets.triton.text, targets.cute.text, targets.cutile.text) == ("3.2.0", "4.4.2", "1.2.0")
    assert "setup.py install_requires" in targets.triton.source
    assert "newest allowed" in targets.cute.source


def test_main_dependencies_come_before_extras(tmp_path):
    write(tmp_path, {"pyproject.toml": '[project]\nname = "p"\ndependencies = ["triton>=3.2,<3.4"]\n'
                                       '[project.optional-dependencies]\ntest = ["triton==3.6.0"]\n',
                     "requirements-dev.txt": "triton==3.0.0\n", "k.py": ""})
    assert [p.where for p in project_pins(tmp_path)][0] == "pyproject.toml [project] dependencies"
    assert targets_for(tmp_path / "k.py").triton.text == "3.3.1"


def test_configured_versions_win_and_are_validated(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.kernelint]\ntriton-version = "3.3.1"\n', "requirements.txt": "triton==3.6.0\n"})
    settings = read_settings(tmp_path / "pyproject.toml")
    assert targets_for(tmp_path / "k.py", settings.target_versions).triton.describe().startswith("Triton 3.3.1 (set by")
    write(tmp_path, {"pyproject.toml": '[tool.kernelint]\ncutlass-dsl-version = 4\n'})
    with pytest.raises(ConfigError, match="cutlass-dsl-version must be a version"):
        read_settings(tmp_path / "pyproject.toml")


def test_the_table_answers_by_release():
    assert status_in(triton.API_CHANGES, triton.EXPERIMENTAL_DESCRIPTOR_LOAD, (3, 3, 1)).state == OK
    assert status_in(triton.API_CHANGES, triton.EXPERIMENTAL_DESCRIPTOR_LOAD, (3, 4)).state == MISSING
    assert status_in(triton.API_CHANGES, triton.MAKE_TENSOR_DESCRIPTOR, (3, 3, 1)).state == MISSING
    assert status_in(triton.API_CHANGES, triton.MAKE_BLOCK_PTR, (3, 8)).state == DEPRECATED
    assert status_in(triton.API_CHANGES, triton.MAKE_BLOCK_PTR, (3, 9)).state == MISSING


def test_show_settings_and_flags_name_the_target(tmp_path):
    import subprocess
    import sys

    write(tmp_path, {"requirements.txt": "triton>=3.2,<3.4\nnvidia-cutlass-dsl==4.5.0\n", "setup.py": "",
                     "k.py": "import triton\n"})

    def settings(*flags):
        result = subprocess.run([sys.executable, "-m", "kernelint", "check", "--show-settings", "k.py", *flags],
                                cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in result.stdout.splitlines()}

    shown = settings()
    assert shown["triton-version"].startswith("3.3.1 (pinned: triton>=3.2,<3.4 in requirements.txt")
    assert shown["cutlass-dsl-version"] == "4.5.0 (pinned: nvidia-cutlass-dsl==4.5.0 in requirements.txt)"
    assert settings("--triton-version", "3.6")["triton-version"] == "3.6.0 (set by --triton-version)"


def test_findings_follow_the_pinned_release(tmp_path):
    """One file, two projects: pinned 3.3.1 the 3.3 spelling is fine, pinned 3.4.0 it is KL131."""
    import subprocess
    import sys

    kernel = ("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x_ptr, M, N, B: tl.constexpr):\n"
              "    d = tl._experimental_make_tensor_descriptor(x_ptr, [M, N], [N, 1], [B, B])\n")
    codes = {}
    for pin in ("3.3.1", "3.4.0"):
        project = write(tmp_path / pin, {"requirements.txt": f"triton=={pin}\n", "setup.py": "", "k.py": kernel})
        result = subprocess.run([sys.executable, "-m", "kernelint", "check", "k.py", "--select", "KL131",
                                 "--no-cache", "--output-format", "concise"], cwd=project, capture_output=True,
                                text=True, timeout=120)
        codes[pin] = result.stdout
    assert "KL131" not in codes["3.3.1"]
    assert "KL131" in codes["3.4.0"] and "Triton 3.4.0 (pinned: triton==3.4.0 in requirements.txt)" in codes["3.4.0"]


def test_an_edited_pin_is_read_again(tmp_path):
    """A long-running process (the language server) sees a pin change without a restart."""
    import os

    write(tmp_path, {"requirements.txt": "triton==3.3.1\n", "setup.py": "", "k.py": ""})
    assert targets_for(tmp_path / "k.py").triton.text == "3.3.1"
    (tmp_path / "requirements.txt").write_text("triton==3.4.0\n", encoding="utf-8")
    os.utime(tmp_path / "requirements.txt", ns=(1, 10**18))
    assert targets_for(tmp_path / "k.py").triton.text == "3.4.0"


def test_a_project_pinned_to_triton_1_gets_one_finding_per_kernel(tmp_path):
    """Issue 22's report: a Triton 1.x module pinned to triton==1.0.0 drew findings with a wrong
    diagnosis (KL123 on meta['BLOCK']); now each kernel gets one KL133 saying what it was written for."""
    import json
    import subprocess
    import sys

    kernel = ("import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef _add(X, Y, Z, N, **meta):\n"
              "    BLOCK = meta['BLOCK']\n    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
              "    mask = offsets < N\n    tl.store(Z + offsets, tl.load(X + offsets, mask=mask), mask=mask)\n")
    project = write(tmp_path, {"requirements.txt": "triton==1.0.0\n", "setup.py": "", "k.py": kernel})
    result = subprocess.run([sys.executable, "-m", "kernelint", "check", "k.py", "--select", "KL123,KL133",
                             "--no-cache", "--format", "json"], cwd=project, capture_output=True, text=True, timeout=120)
    findings = json.loads(result.stdout)
    assert [(f["code"], f["severity"]) for f in findings] == [("KL133", "info")]
    assert "Triton 1.0.0 (pinned: triton==1.0.0 in requirements.txt)" in findings[0]["message"]
