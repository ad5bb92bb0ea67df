"""SARIF output: valid against the 2.1.0 schema and carrying what GitHub code scanning reads."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ROOT
from kernelint.rules import all_rules
from test_cli import run_kernelint, write

SCHEMA = ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"

SOURCE = (
    "import triton\n"
    "\n"
    "x = 1  # noqa: KL001\n"
    "y = 2  # noqa: KL001\n"
    "x = 1  # noqa: KL001\n"  # same text as line 3: must still get its own fingerprint
)


def sarif(cwd: Path, *paths: str) -> dict:
    result = run_kernelint("check", "--format", "sarif", *paths, cwd=cwd)
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)


@pytest.fixture
def log(tmp_path) -> dict:
    write(tmp_path, {"src/mod.py": SOURCE, "src/broken.py": "import triton\ndef f(:\n"})
    return sarif(tmp_path, "src")


def test_valid_against_the_schema(log):
    if not SCHEMA.is_file():
        pytest.skip(f"SARIF schema not found at {SCHEMA} (shared/ is expected beside the clone)")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(log)]
    assert not errors, "\n".join(errors[:10])


def test_rules_carry_what_code_scanning_shows(log):
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [rule.code for rule in all_rules()]
    for descriptor, rule in zip(rules, all_rules()):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"]
        assert "## What it does" in descriptor["help"]["text"]
        assert descriptor["help"]["markdown"].startswith(f"# {rule.name} ({rule.code})")
        assert descriptor["defaultConfiguration"]["level"] == {
            "error": "error", "warning": "warning", "info": "note"}[rule.severity.value]


def test_results(log):
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [
        ("KL001", 2), ("KL003", 3), ("KL003", 4), ("KL003", 5)]
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert result["message"]["text"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert location["artifactLocation"]["uri"] in ("src/broken.py", "src/mod.py")
        region = location["region"]
        assert region["startLine"] <= region["endLine"]
        assert region["startColumn"] <= region["endColumn"]
    stale = results[1]
    assert stale["level"] == "warning"
    assert stale["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3, "startColumn": 8, "endLine": 3, "endColumn": 8}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file://")


def _fingerprints(log) -> list[str]:
    return [r["partialFingerprints"]["primaryLocationLineHash"] for r in log["runs"][0]["results"]]


def test_fingerprints_are_distinct_and_survive_unrelated_edits(tmp_path):
    write(tmp_path, {"mod.py": SOURCE})
    before = _fingerprints(sarif(tmp_path, "mod.py"))
    assert len(set(before)) == len(before) == 3
    write(tmp_path, {"mod.py": SOURCE.replace("\n\n", "\n# a new comment\n\nimport os\n\n", 1)})
    after = sarif(tmp_path, "mod.py")
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in after["runs"][0]["results"]]
    assert lines == [6, 7, 8]
    assert _fingerprints(after) == before


def test_fingerprint_changes_when_the_flagged_line_changes(tmp_path):
    write(tmp_path, {"mod.py": SOURCE})
    before = _fingerprints(sarif(tmp_path, "mod.py"))
    write(tmp_path, {"mod.py": SOURCE.replace("y = 2", "y = 3")})
    after = _fingerprints(sarif(tmp_path, "mod.py"))
    assert after[0] == before[0] and after[2] == before[2] and after[1] != before[1]


def _git_repo(root: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q"], cwd=root, check=True)


@pytest.mark.parametrize("where", ["", "src", "src/deeper"])
def test_uris_are_relative_to_the_repository_root_whatever_the_working_directory(tmp_path, where):
    pytest.importorskip("shutil").which("git") or pytest.skip("git is not installed")
    write(tmp_path, {"src/mod.py": SOURCE, "src/deeper/x.txt": ""})
    _git_repo(tmp_path)
    cwd = tmp_path / where if where else tmp_path
    target = str((tmp_path / "src" / "mod.py").relative_to(cwd)) if where != "src/deeper" else "../mod.py"
    run = sarif(cwd, target)["runs"][0]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]} == {"src/mod.py"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"


def test_file_outside_the_root_gets_an_absolute_uri(tmp_path):
    write(tmp_path, {"project/x.txt": "", "outside/mod.py": SOURCE})
    run = sarif(tmp_path / "project", str(tmp_path / "outside" / "mod.py"))["runs"][0]
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (tmp_path / "outside" / "mod.py").resolve().as_uri()}


def test_rule_docs_travel_in_the_log_and_no_address_is_invented(log):
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert "informationUri" not in driver  # kernelint has no public home page
    for rule in driver["rules"]:
        assert "helpUri" not in rule  # no docs-url configured
        assert rule["help"]["markdown"].startswith(f"# {rule['name']} ({rule['id']})")
        assert "## Evidence" in rule["help"]["markdown"]
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is True and invocation["exitCode"] == 1
    assert invocation["arguments"][:3] == ["check", "--format", "sarif"]
    assert invocation["workingDirectory"]["uri"].startswith("file://")


def test_fixes_are_sarif_fixes(tmp_path):
    source = "import triton\n\nx = 1  # noqa: KL001, E501\n"
    write(tmp_path, {"mod.py": source})
    log = sarif(tmp_path, "mod.py")
    if SCHEMA.is_file():
        jsonschema = pytest.importorskip("jsonschema")
        schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
        assert not list(jsonschema.validators.validator_for(schema)(schema).iter_errors(log))
    [fix] = log["runs"][0]["results"][0]["fixes"]
    [change] = fix["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "mod.py"
    [replacement] = change["replacements"]
    region = replacement["deletedRegion"]
    # "# noqa: KL001, E501" (columns 8-27) becomes "# noqa: E501".
    assert (region["startLine"], region["startColumn"], region["endColumn"]) == (3, 8, 27)
    assert replacement["insertedContent"]["text"] == "# noqa: E501"
    assert fix["description"]["text"].startswith("Remove unused suppression KL001")


def test_columns_count_code_points(tmp_path):
    write(tmp_path, {"mod.py": 'import triton\n\nname = "ünï"  # noqa: KL001\n'})
    region = sarif(tmp_path, "mod.py")["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region["startColumn"] == len('name = "ünï"  ') + 1  # the comment, counted in characters
