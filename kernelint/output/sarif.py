"""SARIF 2.1.0 for GitHub code scanning, built with ``sarif-om``."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from urllib.parse import quote

import attr
import sarif_om as om

import kernelint
from kernelint import docs
from kernelint.baseline import fingerprints
from kernelint.findings import Finding, Severity, Site
from kernelint.sources import Sources, character_column

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
        help_uri=docs.rule_url(rule.code),
        default_configuration=om.ReportingConfiguration(
            level=_LEVEL[rule.severity], enabled=rule.default_enabled
        ),
    )


def source_root() -> Path:
    """What %SRCROOT% stands for: the git work tree holding the working directory (code scanning
    resolves URIs against the repository root), else the working directory itself."""
    from kernelint.gitdiff import repository_root

    cwd = Path.cwd().resolve()
    return repository_root(cwd) or cwd


def _artifact(path: str, root: Path) -> om.ArtifactLocation:
    """A URI relative to %SRCROOT%; a file outside it gets an absolute file URI."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root).as_posix()
    except ValueError:
        try:
            relative = absolute.resolve().relative_to(root).as_posix()
        except ValueError:
            return om.ArtifactLocation(uri=absolute.resolve().as_uri())
    return om.ArtifactLocation(uri=quote(relative), uri_base_id="%SRCROOT%")


def _column(sources: Sources, path: str, line: int, byte_column: int) -> int:
    """A 1-based code-point column (the run's columnKind) from an ``ast``-style byte offset."""
    return character_column(sources.line(path, line), byte_column) + 1


def _region(finding: Finding | Site, sources: Sources) -> om.Region:
    """The finding's (or site's) range in code points (findings count UTF-8 bytes, as ``ast`` does)."""
    start = _column(sources, finding.path, finding.line, finding.column - 1)
    end = _column(sources, finding.path, finding.end_line, finding.end_column - 1)
    if finding.end_line == finding.line:
        end = max(end, start)
    return om.Region(start_line=finding.line, start_column=start, end_line=finding.end_line, end_column=end)


def _fixes(finding: Finding, artifact: om.ArtifactLocation, sources: Sources) -> list | None:
    """The finding's fix as SARIF ``fixes`` (viewers such as VS Code's can apply it); an unsafe
    fix says so in its description."""
    fix = finding.fix
    if fix is None:
        return None
    replacements = [om.Replacement(
        deleted_region=om.Region(
            start_line=e.line, start_column=_column(sources, finding.path, e.line, e.col),
            end_line=e.end_line, end_column=_column(sources, finding.path, e.end_line, e.end_col),
        ),
        inserted_content=om.ArtifactContent(text=e.replacement),
    ) for e in fix.edits]
    title = fix.title if fix.safe else f"{fix.title} (unsafe: may change behaviour; kernelint applies it only with --unsafe-fixes)"
    return [om.Fix(description=om.Message(text=title),
                   artifact_changes=[om.ArtifactChange(artifact_location=artifact, replacements=replacements)])]


def _location(site: Site, root: Path, sources: Sources, message: str, location_id: int | None = None) -> om.Location:
    return om.Location(
        id=location_id if location_id is not None else -1,
        physical_location=om.PhysicalLocation(artifact_location=_artifact(site.path, root),
                                              region=_region(site, sources)),
        message=om.Message(text=message) if message else None,
    )


def _related_locations(finding: Finding, root: Path, sources: Sources) -> list | None:
    """The other sites of the finding's cause (``Finding.related``), each with its own message."""
    if not finding.related:
        return None
    return [_location(site, root, sources, site.message, number) for number, site in enumerate(finding.related, 1)]


def _code_flows(finding: Finding, root: Path, sources: Sources) -> list | None:
    """The facts that have a place in the source, in order, as one thread flow: code scanning
    shows them as the finding's path ("Show paths")."""
    located = [fact for fact in finding.facts if fact.site is not None]
    if not located:
        return None
    steps = [om.ThreadFlowLocation(location=_location(fact.site, root, sources, fact.text)) for fact in located]
    return [om.CodeFlow(thread_flows=[om.ThreadFlow(locations=steps)])]


def _message(finding: Finding) -> str:
    """The message, the count of the cause's other sites, and the facts that have no place in the
    source (the located ones are the code flow)."""
    unlocated = [fact.text for fact in finding.facts if fact.site is None]
    return finding.shown_message + (f" Why: {'; '.join(unlocated)}." if unlocated else "")


def _invocation(exit_code: int | None) -> dict:
    invocation = {
        "executionSuccessful": exit_code in (None, 0, 1),
        "commandLine": " ".join(["kernelint", *sys.argv[1:]]),
        "arguments": sys.argv[1:],
        "workingDirectory": {"uri": Path.cwd().resolve().as_uri() + "/"},
    }
    if exit_code is not None:
        invocation["exitCode"] = exit_code
    return invocation


def render(findings: list[Finding], rules, *, sources: Sources | None = None,
           exit_code: int | None = None, **_) -> str:
    """The SARIF log; ``exit_code`` is recorded in the run's invocation when known."""
    rule_list = sorted(rules, key=lambda r: r.code)
    index = {rule.code: i for i, rule in enumerate(rule_list)}
    root = source_root()
    sources = sources or Sources()
    results = []
    for finding, fingerprint in zip(findings, fingerprints(findings, sources)):
        artifact = _artifact(finding.path, root)
        results.append(om.Result(
            rule_id=finding.code,
            rule_index=index.get(finding.code, -1),
            level=_LEVEL[finding.severity],
            message=om.Message(text=_message(finding)),
            locations=[om.Location(physical_location=om.PhysicalLocation(
                artifact_location=artifact,
                region=_region(finding, sources),
            ))],
            partial_fingerprints={"primaryLocationLineHash": fingerprint},
            fixes=_fixes(finding, artifact, sources),
            related_locations=_related_locations(finding, root, sources),
            code_flows=_code_flows(finding, root, sources),
        ))
    run = om.Run(
        tool=om.Tool(driver=om.ToolComponent(
            name="kernelint",
            version=kernelint.__version__,
            semantic_version=kernelint.__version__,
            information_uri=docs.PROJECT_URL,
            rules=[_descriptor(rule) for rule in rule_list],
        )),
        results=results,
        original_uri_base_ids={"%SRCROOT%": om.ArtifactLocation(uri=root.as_uri() + "/")},
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
    data["runs"][0]["invocations"] = [_invocation(exit_code)]
    for result, finding in zip(data["runs"][0]["results"], findings):
        result["properties"] = {"confidence": finding.confidence.value, "name": finding.name}
    return json.dumps(data, indent=2) + os.linesep
