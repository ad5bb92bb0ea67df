"""The records every part of kernelint passes around: a finding and its severity scale."""
from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Confidence(str, enum.Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


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
