"""Render a rule's doc: one source for `kernelint explain`, docs/rules/*.md, SARIF help and
pylint message help."""
from __future__ import annotations

from kernelint.evidence import describe, further_records, load_record, machine
from kernelint.measured import measured
from kernelint.rules import Rule, pylint_messages

#: kernelint has no public home page: the rule docs travel with the tool (`kernelint explain`,
#: SARIF ``help.markdown``, pylint's message help), and no output names an address that does not
#: exist. SARIF's ``informationUri`` is left out while this is None.
PROJECT_URL: str | None = None

#: The configured ``docs-url`` template of this run (``{code}`` stands for the rule code), set by
#: the command from the configuration it reads; None: no finding or rule carries an address.
_docs_url: str | None = None


def publish_at(template: str | None) -> None:
    """Use ``template`` (a configuration's ``docs-url``) for the addresses of this run's rule docs."""
    global _docs_url
    _docs_url = template


def rule_url(code: str) -> str | None:
    """Where the team that configured ``docs-url`` publishes the rule's doc; None when unset."""
    return _docs_url.replace("{code}", code) if _docs_url else None


def evidence_section(rule: type[Rule]) -> str:
    if rule.evidence_class == "none":
        return "Not applicable: this rule reports a property of the run, not of kernel code."
    record = load_record(rule.code)
    if record is not None:
        text = describe(record)
    elif rule.prior_evidence:
        text = rule.prior_evidence.strip() + "\n\nThe project's own reference pair is not yet measured."
    else:
        text = "Not yet measured."
    for further in further_records(rule.code):
        text += (f"\n\n### The {further.get('dsl')} pair "
                 f"(`reference_kernels/{further.get('dsl')}/{rule.code}_{rule.name.replace('-', '_')}/`)\n\n"
                 + describe(further))
    return text


def header(rule: type[Rule]) -> str:
    default = "on" if rule.default_enabled else "off (select it by code or with ALL)"
    severity = rule.severity.value
    if rule.other_severities:
        severity += f" ({' or '.join(s.value for s in rule.other_severities)} for the quieter cases below)"
    pylint = ", ".join(f"{msgid} `{symbol}`" for _, msgid, symbol in pylint_messages(rule))
    return (
        f"# {rule.name} ({rule.code})\n\n"
        f"{rule.summary}\n\n"
        f"- DSL: {rule.dsl}; family: {rule.family}\n"
        f"- Severity: {severity}; confidence: {rule.confidence.value}; default: {default}\n"
        f"- Evidence class: {rule.evidence_class}\n"
        f"{measured_lines(rule)}"
        f"- pylint: {pylint}\n"
    )


def measured_lines(rule: type[Rule]) -> str:
    """What the rule's pair measured, next to what the seed claimed (issue 24): the range and the
    shapes the bad kernel won, not only the verdict."""
    record = load_record(rule.code) if rule.evidence_class != "none" else None
    if record is None:
        return ""
    where = machine(record).split(",")[0]
    lines = f"- Measured on {where}: {measured(record)}\n"
    return lines + (f"- Seed claim: {record['claim']}\n" if record.get("claim") else "")


def body(rule: type[Rule]) -> str:
    """The ruff-shaped sections, Evidence and References included."""
    parts = [rule.doc.strip(), "## Evidence\n" + evidence_section(rule)]
    if rule.references:
        parts.append("## References\n" + rule.references.strip())
    return "\n\n".join(parts) + "\n"


def render(rule: type[Rule]) -> str:
    return header(rule) + "\n" + body(rule)
