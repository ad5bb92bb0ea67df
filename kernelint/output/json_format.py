"""A JSON array of findings, one object each, in the stable order of the text format; each
carries the ``url`` of its rule's documentation."""
from __future__ import annotations

import json

from kernelint.docs import rule_url
from kernelint.findings import Finding


def render(findings: list[Finding], rules, **_) -> str:
    return json.dumps([{**f.as_dict(), "url": rule_url(f.code)} for f in findings], indent=2) + "\n"
