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


@dataclass(frozen=True, order=True)
class Finding:
    """One report at one source range. Ordered by position so output is deterministic."""

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
        }
