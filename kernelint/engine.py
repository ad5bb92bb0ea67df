"""The engine: parse each file once, build its model in one walk, dispatch nodes to the rules
that asked for them, then apply suppressions. Every front end (CLI, flake8, pylint) calls this."""
from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from dataclasses import dataclass
from typing import Iterable

from kernelint.config import compute_capability
from kernelint.findings import Finding
from kernelint.model import FileContext
from kernelint.model.names import ImportTable
from kernelint.rules import Report, Rule, all_rules, find_rule
from kernelint.suppression import parse_suppressions

SYNTAX_ERROR = "KL001"
INTERNAL_ERROR = "KL002"
UNUSED_SUPPRESSION = "KL003"
_TOOL_CODES = {SYNTAX_ERROR, INTERNAL_ERROR, UNUSED_SUPPRESSION}

#: A file whose text names none of these cannot define or launch a kernel of a supported DSL.
_KERNEL_MARKERS = ("triton", "cutlass", "cuda.tile", "cuda import tile")
_DSL_ROOTS = {"triton": ("triton",), "cute": ("cutlass",), "cutile": ("cuda.tile",)}
_NOQA_KL = re.compile(r"noqa:[^\n]*kl")


@dataclass(frozen=True)
class Options:
    codes: frozenset[str]
    target_arch: str | None = None


def might_hold_kernels(source: str) -> bool:
    return any(marker in source for marker in _KERNEL_MARKERS)


def _may_name_our_rules(source: str) -> bool:
    """False when no suppression in ``source`` can be one KL003 reports (those need
    ``kernelint:`` or a KL code after ``noqa:``), so a file without findings need not be
    tokenized for comments. A fast superset test: two substring scans, rarely a regex."""
    if "kernelint:" in source:
        return True
    lowered = source.lower()
    return "noqa:" in lowered and _NOQA_KL.search(lowered) is not None


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


def check_source(path: str, source: str, options: Options, tree: ast.Module | None = None) -> list[Finding]:
    """All findings for one file's text, suppressions applied, sorted. A front end that has
    already parsed ``source`` with ``ast`` (flake8) passes its ``tree`` to save the second parse."""
    if not might_hold_kernels(source) and not _may_name_our_rules(source):
        return []
    try:
        if tree is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        if SYNTAX_ERROR not in options.codes:
            return []
        if isinstance(error, SyntaxError):
            return [_syntax_error(path, source, error)]
        return [_tool_finding(path, SYNTAX_ERROR, 1, 1, f"file does not parse: {error}")]

    imports = ImportTable.from_tree(tree)
    rules = _applicable(imports, [r for r in all_rules() if r.code in options.codes and r.code not in _TOOL_CODES])
    try:
        findings = _run_rules(path, source, tree, imports, rules, options) if rules else []
    except Exception as error:  # the model failed (e.g. a pathological file): report, go on
        if INTERNAL_ERROR not in options.codes:
            return []
        return [_tool_finding(path, INTERNAL_ERROR, 1, 1, f"file not checked: {type(error).__name__}: {error}")]
    if not findings and (UNUSED_SUPPRESSION not in options.codes or not _may_name_our_rules(source)):
        return []
    return _apply_suppressions(path, source, findings, options)


def _applicable(imports: ImportTable, rules: list[type[Rule]]) -> list[type[Rule]]:
    """The rules whose DSL the file imports: a file that imports none needs no model at all."""
    return [r for r in rules if r.dsl not in _DSL_ROOTS or imports.imports_any(*_DSL_ROOTS[r.dsl])]


def _run_rules(path: str, source: str, tree: ast.Module, imports: ImportTable,
               rules: list[type[Rule]], options: Options) -> list[Finding]:
    findings: list[Finding] = []
    wanted = {t for rule in rules for t in rule.node_types}
    ctx = FileContext(path, source, tree, wanted, imports, compute_capability(options.target_arch))
    for rule_class in rules:
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
    kept = _unsuppressed(findings, suppressions)
    if UNUSED_SUPPRESSION in options.codes:
        # Last, so that a KL003 can itself be silenced by naming KL003 in the same comment.
        kept.extend(_unsuppressed(list(_unused(path, suppressions, options)), suppressions))
    return sorted(set(kept))


def _unsuppressed(findings: list[Finding], suppressions) -> list[Finding]:
    kept = []
    for finding in findings:
        covering = [s for s in suppressions if s.covers(finding)]
        for s in covering:
            s.used = True
        if not covering:
            kept.append(finding)
    return kept


def _named_rules(suppression) -> list[type[Rule]]:
    if suppression.ours:
        rule = find_rule(suppression.key)
        return [rule] if rule else []
    return [rule for rule in all_rules() if rule.code.startswith(suppression.key)]


def _unused(path: str, suppressions, options: Options) -> Iterable[Finding]:
    for s in suppressions:
        if s.used or s.key is None or not (s.ours or s.key.startswith("KL")):
            continue  # a bare noqa, or another tool's code
        named = _named_rules(s)
        if not named:
            yield _tool_finding(path, UNUSED_SUPPRESSION, s.line, s.column + 1,
                                f"suppression names unknown rule {s.key!r}")
        elif any(rule.code in options.codes and rule.code != UNUSED_SUPPRESSION for rule in named):
            label = f"{named[0].code} ({named[0].name})" if len(named) == 1 else s.key
            yield _tool_finding(path, UNUSED_SUPPRESSION, s.line, s.column + 1,
                                f"unused suppression: {label} reports nothing here")


def check_file(path: str, options: Options) -> list[Finding]:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return [_tool_finding(path, INTERNAL_ERROR, 1, 1, f"cannot read file: {error.strerror or error}")]
    return check_source(path, decode(data), options)


def check_with_project_config(path: str, source: str, tree: ast.Module | None = None) -> list[Finding]:
    """What the editor front ends (flake8, pylint) run: the rules ``kernelint check`` would run on
    ``path`` by default, with a broken configuration reported as a KL002 finding, not a crash."""
    from kernelint.config import ConfigError, options_for

    try:
        options = options_for(path)
    except ConfigError as error:
        return [_tool_finding(path, INTERNAL_ERROR, 1, 1, f"kernelint configuration error: {error}")]
    return check_source(path, source, options, tree=tree)
