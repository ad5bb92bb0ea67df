"""SARIF 2.1.0 for GitHub code scanning, built with ``sarif-om``."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from urllib.parse import quote

import attr
import sarif_om as om

import kernelint
from kernelint import docs
from kernelint.findings import Finding, Severity

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


#: Emitted even when equal to the schema default: GitHub reads them from every rule and result.
_ALWAYS = {"level", "version"}


def _default(field):
    default = field.default
    return default.factory() if isinstance(default, attr.Factory) else default


def _to_json(value):
    """sarif-om objects -> plain JSON, using the schema property names, defaults left out."""
    if attr.has(type(value)):
        out = {}
        for field in attr.fields(type(value)):
            item = getattr(value, field.name)
            if item is None or (field.name not in _ALWAYS and item == _default(field)):
                continue
            out[field.metadata.get("schema_property_name", field.name)] = _to_json(item)
        return out
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    return value


def _what_it_does(rule) -> str:
    """The doc's first section as one paragraph (SARIF's fullDescription is plain text)."""
    section = rule.doc.split("## What it does", 1)[-1].split("\n## ", 1)[0]
    return " ".join(section.split()) or rule.summary


def _descriptor(rule) -> om.ReportingDescriptor:
    return om.ReportingDescriptor(
        id=rule.code,
        name=rule.name,
        short_description=om.MultiformatMessageString(text=rule.summary),
        full_description=om.MultiformatMessageString(text=_what_it_does(rule)),
        help=om.MultiformatMessageString(text=docs.body(rule), markdown=docs.render(rule)),
        default_configuration=om.ReportingConfiguration(
            level=_LEVEL[rule.severity], enabled=rule.default_enabled
        ),
    )


def _artifact(path: str) -> om.ArtifactLocation:
    """A URI relative to %SRCROOT% (the working directory), as code scanning wants; a file
    outside it gets an absolute file URI."""
    absolute = Path(path).resolve()
    try:
        relative = absolute.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return om.ArtifactLocation(uri=absolute.as_uri())
    return om.ArtifactLocation(uri=quote(relative), uri_base_id="%SRCROOT%")


def _fingerprint(finding: Finding, line_text: str, occurrence: int) -> str:
    """Stable across unrelated edits: the rule, the file, the flagged line's text (stripped) and
    which occurrence of that text it is — not the line number."""
    key = f"{finding.code}:{_artifact(finding.path).uri}:{line_text.strip()}:{occurrence}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _line_texts(path: str) -> list[str]:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def render(findings: list[Finding], rules) -> str:
    rule_list = sorted(rules, key=lambda r: r.code)
    index = {rule.code: i for i, rule in enumerate(rule_list)}
    results = []
    texts: dict[str, list[str]] = {}
    seen: dict[tuple[str, str, str], int] = {}
    for finding in findings:
        lines = texts.setdefault(finding.path, _line_texts(finding.path))
        line_text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        key = (finding.code, finding.path, line_text.strip())
        seen[key] = seen.get(key, 0) + 1
        results.append(om.Result(
            rule_id=finding.code,
            rule_index=index.get(finding.code, -1),
            level=_LEVEL[finding.severity],
            message=om.Message(text=finding.message),
            locations=[om.Location(physical_location=om.PhysicalLocation(
                artifact_location=_artifact(finding.path),
                region=om.Region(
                    start_line=finding.line, start_column=finding.column,
                    end_line=finding.end_line, end_column=max(finding.end_column, finding.column),
                ),
            ))],
            partial_fingerprints={"primaryLocationLineHash": _fingerprint(finding, line_text, seen[key])},
        ))
    run = om.Run(
        tool=om.Tool(driver=om.ToolComponent(
            name="kernelint",
            version=kernelint.__version__,
            semantic_version=kernelint.__version__,
            rules=[_descriptor(rule) for rule in rule_list],
        )),
        results=results,
        original_uri_base_ids={"%SRCROOT%": om.ArtifactLocation(uri=Path.cwd().resolve().as_uri() + "/")},
        column_kind="unicodeCodePoints",
    )
    log = om.SarifLog(version="2.1.0", schema_uri=SCHEMA, runs=[run])
    data = _to_json(log)
    for descriptor, rule in zip(data["runs"][0]["tool"]["driver"]["rules"], rule_list):
        descriptor["properties"] = {
            "tags": ["gpu", rule.dsl, rule.family],
            "precision": {"high": "high", "medium": "medium", "low": "low"}[rule.confidence.value],
            "problem.severity": {"error": "error", "warning": "warning", "info": "recommendation"}[rule.severity.value],
        }
    for result, finding in zip(data["runs"][0]["results"], findings):
        result["properties"] = {"confidence": finding.confidence.value, "name": finding.name}
    return json.dumps(data, indent=2) + os.linesep
