"""The rule contract and the registry of every rule kernelint ships.

A rule is a class in one of the ``kernelint.checkers`` modules. It declares its metadata and the
AST node types it wants; the engine walks each file once and hands the rule only those nodes.
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar, Iterable, Iterator

from kernelint.evidence import EVIDENCE_CLASSES
from kernelint.findings import SEVERITY_RANK, Confidence, Fix, Severity

if TYPE_CHECKING:
    from kernelint.model import FileContext
    from kernelint.model.kernels import Kernel

DSLS = ("triton", "cute", "cutile", "any")


@dataclass(frozen=True)
class Because:
    """A fact behind a report, in words, and the node it was read from when there is one:
    ``Because("grid axis 1 = `B * H`", entry)``. Shown with ``--show-facts``, in JSON ``facts``
    and as SARIF ``codeFlows``."""

    text: str
    node: ast.AST | None = None


@dataclass(frozen=True)
class Report:
    """What a rule yields: a node (or explicit range) and a message."""

    node: ast.AST
    message: str
    end_node: ast.AST | None = None
    #: A mechanical resolution (``kernelint.findings.Fix``); no rule is required to offer one.
    fix: Fix | None = None
    #: This finding's severity when it is not the rule's: one of the rule's ``other_severities``
    #: (a quieter case of the rule, e.g. one the evidence supports only at info). None: the rule's.
    severity: Severity | None = None
    #: What this report is a symptom of, as a key stable under edits elsewhere (a kernel's name
    #: and the grid axis; the shape read a product comes from). Reports of one rule in one file
    #: with the same cause become one finding, the others its ``related`` sites, and a baseline
    #: entry matches the cause; a key written by ``grouping.project_cause`` joins the sites of
    #: every file of the project. None: the report is its own cause.
    cause: str | None = None
    #: Why it fires: the facts the rule read, each a ``Because``.
    facts: tuple[Because, ...] = ()


class Rule:
    """Base class of every rule. Subclasses set the class attributes and implement ``check``.

    ``doc`` is markdown with the sections *What it does*, *Why is this bad?*, *Example*,
    *Use instead* and *References*; the *Evidence* section is added from the measured record.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    family: ClassVar[str]
    dsl: ClassVar[str]
    severity: ClassVar[Severity]
    #: Severities some of the rule's findings carry instead of ``severity`` (``Report(severity=)``),
    #: each less severe than it: the rule's severity, which the evidence policy ties to the
    #: measured record, is the most any finding of the rule may claim.
    other_severities: ClassVar[tuple[Severity, ...]] = ()
    confidence: ClassVar[Confidence] = Confidence.HIGH
    default_enabled: ClassVar[bool] = True
    evidence_class: ClassVar[str]
    summary: ClassVar[str]
    doc: ClassVar[str]
    #: Where the rule's facts come from (seed section, upstream docs); rendered as *References*.
    references: ClassVar[str] = ""
    #: What was measured before the project's own pair ran (quoted from measured-facts.md);
    #: shown as *Evidence* until ``reference_kernels/evidence/<code>.json`` exists.
    prior_evidence: ClassVar[str] = ""
    #: AST node classes the rule wants to see (anywhere in the file).
    node_types: ClassVar[tuple[type[ast.AST], ...]] = ()
    #: The calls ``check`` can report on, as keys of ``FileContext.calls_to`` (called names, or
    #: ``.name`` for any call of a function or method last named ``name``): when set, ``check``
    #: sees only those calls instead of every ``ast.Call`` of the file. Most per-call rules
    #: decide by the called name first, and asking each of them about every call of a CuTe
    #: file cost seconds over a corpus. A rule whose ``check`` could report on another call
    #: must not set it (``tests/test_call_dispatch.py`` checks this on every fixture and pair).
    calls: ClassVar[frozenset[str]] = frozenset()
    #: When true, ``finish`` is called once per file after the walk.
    wants_finish: ClassVar[bool] = False
    #: A DSL: ``check_kernel`` is called once per kernel of it. The language server keeps those
    #: findings while the kernel, the kernels it calls or is called by and the file outside
    #: other kernels' bodies are unchanged (``kernelint/reuse.py``), so ``check_kernel`` must
    #: read nothing else of the file.
    per_kernel: ClassVar[str | None] = None
    #: DSLs the rule also applies to besides its home ``dsl`` (KL104 reads cuTile kernels too).
    also_dsls: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def severities(cls) -> tuple[Severity, ...]:
        """Every severity the rule's findings may carry: its own first."""
        return (cls.severity, *cls.other_severities)

    @classmethod
    def dsls(cls) -> tuple[str, ...]:
        """Every DSL the rule reads: its home DSL first."""
        return (cls.dsl, *cls.also_dsls)

    def check(self, node: ast.AST, ctx: "FileContext") -> Iterable[Report]:
        return ()

    def finish(self, ctx: "FileContext") -> Iterable[Report]:
        return ()

    def check_kernel(self, kernel: "Kernel", ctx: "FileContext") -> Iterable[Report]:
        return ()


_CODE_RE = re.compile(r"^KL\d{3}$")
#: The folder of ``checkers/`` that holds each hundred of codes.
_HOME_FOLDER = {"0": "tool", "1": "triton", "2": "triton", "3": "cute", "4": "cutile"}
_NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def _validate(rule: type[Rule]) -> None:
    problems = []
    if not _CODE_RE.match(rule.code):
        problems.append(f"bad code {rule.code!r}")
    if not _NAME_RE.match(rule.name):
        problems.append(f"bad name {rule.name!r}")
    if rule.evidence_class not in EVIDENCE_CLASSES:
        problems.append(f"bad evidence class {rule.evidence_class!r}")
    for dsl in rule.dsls():
        if dsl not in DSLS:
            problems.append(f"bad dsl {dsl!r}")
    home = _HOME_FOLDER.get(rule.code[2:3])
    if home is not None and rule.__module__.split(".")[-2:-1] != [home]:
        problems.append(f"{rule.code} belongs in checkers/{home}/, not {rule.__module__}")
    for other in rule.other_severities:
        if not isinstance(other, Severity) or SEVERITY_RANK[other] >= SEVERITY_RANK[rule.severity]:
            problems.append(f"other severity {other!r} is not less severe than {rule.severity.value}")
    if len(set(rule.other_severities)) != len(rule.other_severities):
        problems.append("other_severities repeats a severity")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        if section not in rule.doc:
            problems.append(f"doc lacks {section!r}")
    if problems:
        raise TypeError(f"rule {rule.__name__}: " + "; ".join(problems))


def _iter_rule_classes() -> Iterator[type[Rule]]:
    import kernelint.checkers as package

    prefix = package.__name__ + "."
    for info in sorted(pkgutil.walk_packages(package.__path__, prefix), key=lambda i: i.name):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value is not Rule
                and value.__module__ == module.__name__
                and "code" in vars(value)
            ):
                yield value


@lru_cache(maxsize=None)
def all_rules() -> tuple[type[Rule], ...]:
    """Every registered rule class, sorted by code. Validates metadata and uniqueness."""
    rules = sorted(_iter_rule_classes(), key=lambda r: r.code)
    seen: dict[str, str] = {}
    for rule in rules:
        _validate(rule)
        for key in (rule.code, rule.name):
            if key in seen:
                raise TypeError(f"duplicate rule key {key!r} in {rule.__name__} and {seen[key]}")
            seen[key] = rule.__name__
    return tuple(rules)


def find_rule(code_or_name: str) -> type[Rule] | None:
    key = code_or_name.strip()
    for rule in all_rules():
        if key.upper() == rule.code or key.lower() == rule.name:
            return rule
    return None


_PYLINT_LETTER = {Severity.ERROR: "E", Severity.WARNING: "W", Severity.INFO: "C"}
#: pylint checker id of KL0xx; KL1xx is one more, and so on.
PYLINT_CHECKER_BASE = 71


def pylint_message(rule: type[Rule], severity: Severity | None = None) -> tuple[str, str]:
    """The one mapping from a kernelint code (and a finding's severity) to a pylint message id and
    symbol.

    pylint ids are a letter and four digits whose first two (the checker id) must be the same for
    every message of one checker and unique across all loaded checkers: KL0xx uses checker 71,
    KL1xx 72, and so on; the last two digits are the code's. 51-99 is the range pylint leaves to
    plugins, and its low end is taken (pylint-django 51, pylint's own extensions 55, 56, 60-63
    and 90, pylint-pytest 64, pylint-odoo 79-82, perflint 82): 71-78 is used by none of those.
    Tool rules get a ``kernelint-`` symbol prefix so they cannot clash with ``syntax-error``.

    A pylint message has one category, so findings at one of the rule's ``other_severities`` are
    a message of their own: the same digits under that severity's letter, and the symbol with
    the severity appended (KL303's info findings: ``C7403`` ``mbarrier-init-without-fence-info``).
    """
    severity = severity or rule.severity
    checker_id = PYLINT_CHECKER_BASE + int(rule.code[2])
    symbol = f"kernelint-{rule.name}" if rule.code.startswith("KL0") else rule.name
    if severity is not rule.severity:
        symbol = f"{symbol}-{severity.value}"
    return f"{_PYLINT_LETTER[severity]}{checker_id}{rule.code[3:]}", symbol


def pylint_messages(rule: type[Rule]) -> list[tuple[Severity, str, str]]:
    """``(severity, msgid, symbol)`` of every pylint message the rule's findings may become."""
    return [(severity, *pylint_message(rule, severity)) for severity in rule.severities()]


def configured_severity_messages(rule: type[Rule]) -> list[tuple[Severity, str, str]]:
    """The pylint messages for the severities only a project's ``[tool.kernelint.severity]``
    gives the rule's findings (pylint fixes a message's category, so each is a message)."""
    return [(severity, *pylint_message(rule, severity)) for severity in Severity
            if severity not in rule.severities()]
