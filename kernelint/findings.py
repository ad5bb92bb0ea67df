"""The records every part of kernelint passes around: a finding and its severity scale."""
from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


#: Severity order, least severe first (``other_severities`` must rank below the rule's).
SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


class Confidence(str, enum.Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


@dataclass(frozen=True)
class Edit:
    """Replace the text from (line, col) to (end_line, end_col) with ``replacement``. Lines are
    1-based and columns 0-based, as in ``ast``; an empty range inserts."""

    line: int
    col: int
    end_line: int
    end_col: int
    replacement: str


@dataclass(frozen=True)
class Fix:
    """A mechanical change that resolves a finding (ruff's ``Fix``). ``safe`` fixes keep the
    program's intent and are applied by ``--fix``; unsafe ones only with ``--unsafe-fixes``."""

    title: str
    edits: tuple[Edit, ...]
    safe: bool = True


@dataclass(frozen=True)
class Site:
    """A source range, in the units of a finding (1-based lines, 1-based UTF-8 byte columns).
    A grouped finding's other sites (``Finding.related``) and a fact's location are Sites;
    ``message`` is what the site itself would have said (the finding's message there)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str = ""

    def as_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column,
                "end_line": self.end_line, "end_column": self.end_column, "message": self.message}


@dataclass(frozen=True)
class Fact:
    """One fact a finding rests on, in words (``grid axis 1 = `B * H```), and where it was read
    when that is a place in the source (``--show-facts``, JSON ``facts``, SARIF ``codeFlows``)."""

    text: str
    site: Site | None = None

    def as_dict(self) -> dict:
        return {"text": self.text, "location": self.site.as_dict() if self.site else None}


@dataclass(frozen=True, order=True)
class Finding:
    """One report at one source range. Ordered by position so output is deterministic.

    A finding stands for one *cause*: when a rule gives several reports the same ``cause``, the
    engine keeps the first as the finding and lists the others in ``related``
    (``kernelint.grouping``)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    severity: Severity
    confidence: Confidence
    message: str
    #: How to resolve it mechanically, when a rule knows; not part of identity or order.
    fix: Fix | None = field(default=None, compare=False)
    #: The other sites of the same cause, in source order (``Report(cause=...)``).
    related: tuple[Site, ...] = field(default=(), compare=False)
    #: Why it fires: the facts the rule read (``Report(facts=...)``).
    facts: tuple[Fact, ...] = field(default=(), compare=False)
    #: The rule's key of the cause (stable across edits that move code: the baseline uses it);
    #: None when each report is its own cause.
    cause: str | None = field(default=None, compare=False)

    @property
    def shown_message(self) -> str:
        """The message with the count of the cause's other sites, for front ends that show one
        line a finding and no related locations (flake8, pylint, GitHub annotations)."""
        return self.message + related_note(self.related, self.path)

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "confidence": self.confidence.value,
            "message": self.message,
            "related": [site.as_dict() for site in self.related],
            "facts": [fact.as_dict() for fact in self.facts],
        }


def related_note(related: tuple[Site, ...], path: str) -> str:
    """`` (and 2 more: lines 40, 52)``: the other sites of a finding's cause, in words; where one
    is in another file, each is named with its place (`` (and 2 more: line 40, ops/bwd.py:7)``).
    Empty when there are none."""
    if not related:
        return ""
    shown = related[:5]
    more = ", ..." if len(related) > 5 else ""
    if all(site.path == path for site in shown):
        word = "line" if len(related) == 1 else "lines"
        return f" (and {len(related)} more: {word} {', '.join(str(site.line) for site in shown)}{more})"
    places = [f"line {site.line}" if site.path == path else f"{site.path}:{site.line}" for site in shown]
    return f" (and {len(related)} more: {', '.join(places)}{more})"
