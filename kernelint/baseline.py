"""Baselines: record today's findings, then report only new ones (``--write-baseline``,
``--baseline``).

A finding is known by its file, its code, the text of the line it starts on (whitespace
collapsed) and which occurrence of that (code, text) pair in the file it is: never by line
number, so moving code, adding lines above it or re-indenting it keeps it known, while a second
copy of the same bad line is new. A finding that stands for a cause (``Finding.cause``: one
finding for several sites, ``kernelint.grouping``) is known by its file, code and cause instead,
so the entry covers every site of that cause: adding, removing or moving one of its sites keeps
it known. A cause that lives in the project rather than in one file (``grouping.project_cause``:
its sites may be in several files, and which of them leads depends on which files exist) is known
by its code and cause alone, wherever its lead site is: moving a site to another file, or
removing the file of the lead site, keeps it known. Paths are stored relative to the baseline
file's folder, so the baseline works from any working directory.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path

import kernelint
from kernelint.findings import Finding
from kernelint.grouping import in_project
from kernelint.sources import Sources

FORMAT = 1


class BaselineError(Exception):
    pass


def normalized(text: str) -> str:
    return " ".join(text.split())


def fingerprints(findings: list[Finding], sources: Sources) -> list[str]:
    """One fingerprint per finding, in order."""
    seen: Counter = Counter()
    out = []
    for finding in findings:
        if finding.cause is not None:
            text = "cause:" + finding.cause
        else:
            text = normalized(sources.line(finding.path, finding.line))
        where = "" if in_project(finding.cause) else finding.path
        seen[(where, finding.code, text)] += 1
        occurrence = seen[(where, finding.code, text)]
        key = f"{finding.code}\0{text}\0{occurrence}"
        out.append(hashlib.sha256(key.encode("utf-8")).hexdigest()[:20])
    return out


def _key_path(path: str, base: Path) -> str:
    absolute = os.path.abspath(path)
    try:
        return Path(os.path.relpath(absolute, base)).as_posix()
    except ValueError:  # another drive
        return Path(absolute).as_posix()


def write(target: Path, findings: list[Finding], sources: Sources) -> None:
    base = Path(os.path.abspath(target)).parent
    entries = [
        {"path": _key_path(f.path, base), "code": f.code, "fingerprint": fp, "line": f.line, "message": f.message,
         **({"anywhere": True} if in_project(f.cause) else {})}
        for f, fp in zip(findings, fingerprints(findings, sources))
    ]
    data = {"kernelint_baseline": FORMAT, "version": kernelint.__version__, "findings": entries}
    try:
        target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        raise BaselineError(f"cannot write {target}: {error.strerror or error}") from None


#: An entry's key: (path, code, fingerprint); the path is "" for a project-wide cause.
_Key = tuple[str, str, str]


def load(source: Path) -> set[_Key]:
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except OSError as error:
        raise BaselineError(f"cannot read baseline {source}: {error.strerror or error}") from None
    except ValueError as error:
        raise BaselineError(f"{source}: not a kernelint baseline: {error}") from None
    if not isinstance(data, dict) or data.get("kernelint_baseline") != FORMAT:
        raise BaselineError(f"{source}: not a kernelint baseline (write one with --write-baseline)")
    try:
        return {("" if e.get("anywhere") else e["path"], e["code"], e["fingerprint"]) for e in data["findings"]}
    except (KeyError, TypeError) as error:
        raise BaselineError(f"{source}: malformed baseline entry: {error}") from None


def new_findings(findings: list[Finding], source: Path, sources: Sources) -> list[Finding]:
    """The findings the baseline at ``source`` does not know."""
    known = load(source)
    base = Path(os.path.abspath(source)).parent
    return [
        f for f, fp in zip(findings, fingerprints(findings, sources))
        if ("" if in_project(f.cause) else _key_path(f.path, base), f.code, fp) not in known
    ]
