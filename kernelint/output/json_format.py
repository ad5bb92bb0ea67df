"""A JSON array of findings, one object each, in the stable order of the text format."""
from __future__ import annotations

import json

from kernelint.findings import Finding


def render(findings: list[Finding], rules) -> str:
    return json.dumps([f.as_dict() for f in findings], indent=2) + "\n"
