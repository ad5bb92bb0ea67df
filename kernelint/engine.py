"""The engine: parse each file once, build its model in one walk, dispatch nodes to the rules
that asked for them, then apply suppressions. Every front end (CLI, flake8, pylint) calls this."""
from __future__ import annotations

import ast
import tokenize
import io
import warnings
from dataclasses import dataclass
from typing import Iterable

from kernelint.findings import Confidence, Finding, Severity
from kernelint.model import FileContext
from kernelint.rules import Report, Rule, all_rules, find_rule
from kernelint.suppression import parse_suppressions

SYNTAX_ERROR = "KL001"
INTERNAL_ERROR = "KL002"
UNUSED_SUPPRESSION = "KL003"
_TOOL_CODES = {SYNTAX_ERROR, INTERNAL_ERROR, UNUSED_SUPPRESSION}

#: A file whose text names none of these cannot define or launch a kernel of a supported DSL.
_KERNEL_MARKERS = ("triton", "cutlass", "cuda.tile", "cuda import tile")
_DSL_ROOTS = {"triton": ("triton",), "cute": ("cutlass",), "cutile": ("cuda.tile",)}


@dataclass(frozen=True)
class Options:
    codes: frozenset[str]
    target_arch: str | None = None


def might_hold_kernels(source: str) -> bool:
    return any(marker in source for marker in _KERNEL_MARKERS)


def decode(data: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return data.decode("utf-8", errors="replace")


def _finding(path: str, rule: type[Rule], node: ast.AST, message: str, end: ast.AST | None = None) -> Finding:
    end = end or node
    line = getattr(node, "lineno", 1)
    column = getattr(node, "col_offset", 0) + 1
    return Finding(
        path, line, column,
        getattr(end, "end_lineno", None) or line,
        (getattr(end, "end_col_offset", None) or column - 1) + 1,
        rule.code, rule.name, rule.severity, rule.confidence, message,
    )


def _tool_finding(path: str, code: str, line: int, column: int, message: str) -> Finding:
    rule = find_rule(code)
    return Finding(path, line, column, line, column, code, rule.name, rule.severity, rule.confidence, message)


def _syntax_error(path: str, source: str, error: SyntaxError) -> Finding:
    line = error.lineno or 1
    column = max(error.offset or 1, 1)
    return _tool_finding(path, SYNTAX_ERROR, line, column, f"file does not parse: {error.msg}")


def check_source(path: str, source: str, options: Options) -> list[Finding]:
    """All findings for one file's text, suppressions applied, sorted."""
    if not might_hold_kernels(source) and "KL" not in source:
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as error:
        if SYNTAX_ERROR not in options.codes:
            return []
        if isinstance(error, SyntaxError):
            return [_syntax_error(path, source, error)]
        return [_tool_finding(path, SYNTAX_ERROR, 1, 1, f"file does not parse: {error}")]

    rules = [r for r in all_rules() if r.code in options.codes and r.code not in _TOOL_CODES]
    findings = _run_rules(path, source, tree, rules, options)
    return _apply_suppressions(path, source, findings, options)


def _run_rules(path: str, source: str, tree: ast.Module, rules: list[type[Rule]], options: Options) -> list[Finding]:
    findings: list[Finding] = []
    wanted = {t for rule in rules for t in rule.node_types}
    ctx = FileContext(path, source, tree, wanted)
    ctx.target_arch = options.target_arch
    for rule_class in rules:
        roots = _DSL_ROOTS.get(rule_class.dsl)
        if roots and not ctx.imports.imports_any(*roots):
            continue
        rule = rule_class()
        try:
            reports: list[Report] = []
            for node_type in rule.node_types:
                for node in ctx.nodes(node_type):
                    reports.extend(rule.check(node, ctx))
            if rule.wants_finish:
                reports.extend(rule.finish(ctx))
            findings.extend(_finding(path, rule_class, r.node, r.message, r.end_node) for r in reports)
        except Exception as error:  # a broken rule must not take the others down
            if INTERNAL_ERROR in options.codes:
                findings.append(_tool_finding(
                    path, INTERNAL_ERROR, 1, 1,
                    f"rule {rule_class.code} ({rule_class.name}) failed: {type(error).__name__}: {error}",
                ))
    return findings


def _apply_suppressions(path: str, source: str, findings: list[Finding], options: Options) -> list[Finding]:
    suppressions = parse_suppressions(source)
    if not suppressions:
        return sorted(set(findings))
    kept = []
    for finding in findings:
        silenced = False
        for s in suppressions:
            if s.scope == "line" and s.target_line != finding.line:
                continue
            if s.key is None or s.key.upper() == finding.code or s.key.lower() == finding.name:
                s.used = True
                silenced = True
        if not silenced:
            kept.append(finding)
    if UNUSED_SUPPRESSION in options.codes:
        kept.extend(_unused(path, suppressions, options))
    return sorted(set(kept))


def _unused(path: str, suppressions, options: Options) -> Iterable[Finding]:
    for s in suppressions:
        if s.used or s.key is None:
            continue
        rule = find_rule(s.key)
        if rule is None:
            if s.key.upper().startswith("KL") or "-" in s.key:
                yield _tool_finding(path, UNUSED_SUPPRESSION, s.line, s.column + 1,
                                    f"suppression names unknown rule {s.key!r}")
        elif rule.code in options.codes and rule.code != UNUSED_SUPPRESSION:
            yield _tool_finding(path, UNUSED_SUPPRESSION, s.line, s.column + 1,
                                f"unused suppression: {rule.code} ({rule.name}) reports nothing here")


def check_file(path: str, options: Options) -> list[Finding]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return [_tool_finding(path, INTERNAL_ERROR, 1, 1, f"cannot read file: {error.strerror or error}")]
    return check_source(path, decode(data), options)
