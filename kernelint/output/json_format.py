"""A JSON array of findings, one object each, in the stable order of the text format; each
carries the ``url`` of its rule's documentation and its ``fix`` (null when there is none)."""
from __future__ import annotations

import json

from kernelint.docs import rule_url
from kernelint.findings import Finding, Fix


def _fix(fix: Fix | None) -> dict | None:
    """As ruff writes it: a title, whether --fix applies it or only --unsafe-fixes, the edits
    (1-based lines, 0-based UTF-8 columns as in ``ast``)."""
    if fix is None:
        return None
    return {
        "title": fix.title,
        "applicability": "safe" if fix.safe else "unsafe",
        "edits": [{"line": e.line, "col": e.col, "end_line": e.end_line, "end_col": e.end_col,
                   "replacement": e.replacement} for e in fix.edits],
    }


def render(findings: list[Finding], rules, **_) -> str:
    return json.dumps([{**f.as_dict(), "url": rule_url(f.code), "fix": _fix(f.fix)} for f in findings],
                      indent=2) + "\n"
