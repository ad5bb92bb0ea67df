"""The engine: parse each file once, build its model in one walk, dispatch nodes to the rules
that asked for them, then apply suppressions. Every front end (CLI, flake8, pylint) calls this."""
from __future__ import annotations

import ast
import gc
import re
from contextlib import contextmanager
from functools import lru_cache
from dataclasses import dataclass, field, replace
from typing import Iterable

from kernelint import kernel_split
from kernelint.findings import Fact, Finding, Severity, Site
from kernelint.grouping import group_by_cause
from kernelint.model import FileContext
from kernelint.model.kernels import Kernel
from kernelint.model.dsl import DSLS, SOURCE_MARKERS, import_roots
from kernelint.model.core.names import ImportTable
from kernelint.model.project import modules as parsed_modules
from kernelint.reading import ParseFailure, Unreadable, decode, parse, read_bytes, room_to_recurse, too_large_text
from kernelint.reuse import FileCheck, KernelFindings
from kernelint.rules import Report, Rule, all_rules, find_rule
from kernelint.suppression import parse_suppressions
from kernelint.targets import compute_capability

SYNTAX_ERROR = "KL001"
INTERNAL_ERROR = "KL002"
UNUSED_SUPPRESSION = "KL003"
_TOOL_CODES = {SYNTAX_ERROR, INTERNAL_ERROR, UNUSED_SUPPRESSION}

_NOQA_KL = re.compile(r"noqa:[^\n]*kl")
#: An ``import`` or ``from`` statement that may name a DSL's top-level package (at a line start
#: or after ``;`` / ``:``, as in ``try: import triton``), or one continued with a backslash. A
#: superset of what ``ImportTable.imports_any`` finds, read from the text before any parse.
_DSL_IMPORT = re.compile(
    r"(?:^|[;:])[ \t]*(?:import|from)\b(?:[^\n]*?\b(?:%s)\b|[^\n]*\\\r?$)"
    % "|".join(sorted({root.split(".")[0] for m in DSLS.values() for root in m.IMPORT_ROOTS})),
    re.MULTILINE,
)
#: What a line ``_DSL_IMPORT`` can match holds: a DSL's root package (likeliest first), or a
#: backslash before its end.
_IMPORT_LINE_NEEDLES = ("triton", "cutlass", "cuda", "\\\n", "\\\r")


@dataclass(frozen=True)
class Options:
    """What to run on a file: the selected codes and the GPU target (parsed once, here)."""

    codes: frozenset[str]
    target_arch: str | None = None
    target_sm: int | None = field(init=False, compare=False)
    #: The Triton / CuTe DSL / cuTile releases the file targets (``kernelint.versions.Targets``);
    #: None: resolved from the file's path alone (its project's pins, else installed, else newest).
    target_versions: object = None
    #: flake8 applies ``# noqa`` itself (and skips it under --disable-noqa): the engine then
    #: only notes which noqa comments are used, for KL003, and keeps the findings they cover.
    noqa_by_caller: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "target_sm", compute_capability(self.target_arch))


def might_hold_kernels(source: str) -> bool:
    """False when the text names no DSL at all, so it cannot define or launch a kernel."""
    return any(marker in source for marker in SOURCE_MARKERS)


def might_import_a_dsl(source: str) -> bool:
    """False when no import statement in the text can name a DSL: every rule then skips the
    file (``_applicable``), so it need not be parsed. Most files that mention ``triton`` in a
    comment or a string only are dropped here. ``_DSL_IMPORT`` matches within one line, one
    that names a DSL root or ends in a backslash, so only those lines are searched (a search
    of the whole text tried the pattern at every character: 240 ms over the corpus)."""
    if not might_hold_kernels(source):
        return False
    for needle in _IMPORT_LINE_NEEDLES:
        at = source.find(needle)
        while at >= 0:
            start = source.rfind("\n", 0, at) + 1
            end = source.find("\n", at)
            if end < 0:
                end = len(source)
            if _DSL_IMPORT.search(source, start, end) is not None:
                return True
            at = source.find(needle, end)
    return source.endswith("\\") and _DSL_IMPORT.search(source, source.rfind("\n") + 1) is not None


def might_launch_imported_kernels(source: str) -> bool:
    """The text may launch a Triton kernel another module defines: it imports something and
    has a ``name[...](`` call on one line (a cheap superset test: a few ``find`` calls)."""
    if "import " not in source:
        return False
    start = source.find("](")
    while start >= 0:
        line_start = source.rfind("\n", 0, start) + 1
        bracket = source.rfind("[", line_start, start)
        if bracket > line_start and (source[bracket - 1].isalnum() or source[bracket - 1] == "_"):
            return True
        start = source.find("](", start + 2)
    return False


def _may_name_our_rules(source: str) -> bool:
    """False when no suppression in ``source`` can be one KL003 reports (those need
    ``kernelint:`` or a KL code after ``noqa:``), so a file without findings need not be
    tokenized for comments. A fast superset test: two substring scans, rarely a regex."""
    if "kernelint:" in source:
        return True
    lowered = source.lower()
    return "noqa:" in lowered and _NOQA_KL.search(lowered) is not None


def _finding(path: str, rule: type[Rule], report: Report) -> Finding:
    severity = report.severity or rule.severity
    if severity not in rule.severities():
        raise ValueError(f"reported at {severity.value}, which is not among the rule's severities "
                         f"({', '.join(s.value for s in rule.severities())})")
    node, end = report.node, report.end_node or report.node
    line = getattr(node, "lineno", 1)
    column = getattr(node, "col_offset", 0) + 1
    return Finding(
        path, line, column,
        getattr(end, "end_lineno", None) or line,
        (getattr(end, "end_col_offset", None) or column - 1) + 1,
        rule.code, rule.name, severity, rule.confidence, report.message, report.fix,
        facts=tuple(Fact(b.text, _site(path, b.node) if b.node is not None else None) for b in report.facts),
        cause=report.cause,
    )


def _site(path: str, node: ast.AST) -> Site:
    line = getattr(node, "lineno", 1)
    column = getattr(node, "col_offset", 0) + 1
    return Site(path, line, column, getattr(node, "end_lineno", None) or line,
                (getattr(node, "end_col_offset", None) or column - 1) + 1)


def _tool_finding(path: str, code: str, line: int, column: int, message: str) -> Finding:
    rule = find_rule(code)
    return Finding(path, line, column, line, column, code, rule.name, rule.severity, rule.confidence, message)


def check_source(path: str, source: str, options: Options, tree: ast.Module | None = None,
                 reads: dict[str, str] | None = None) -> list[Finding]:
    """All findings for one file's text, suppressions applied, sorted. A front end that has
    already parsed ``source`` with ``ast`` (flake8) passes its ``tree`` to save the second parse.
    ``reads``, when given, receives the facts from other files the findings depend on (the
    cache keeps them: ``model/project/view.py``)."""
    if not might_import_a_dsl(source) and not _may_name_our_rules(source) \
            and not might_launch_imported_kernels(source):
        return []
    with _collector_paused():
        return _check_source(path, source, options, tree, reads)


@contextmanager
def _collector_paused():
    """Pause the garbage collector while a file is checked, then run it over the young
    generation only. A parsed tree is one big cycle (parent links): automatic collections
    would trace it again and again while it is built, and in a long-lived process (the language
    server, flake8, pylint) that holds other modules' trees each of them may trace those too
    (a re-check of flashinfer's 9,830-line ``gemm_base.py`` in a warm process: 300 ms with the
    collector running, about 130 ms paused). A caller that has paused it keeps it paused."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.collect(0)
        gc.enable()


def _check_source(path: str, source: str, options: Options, tree: ast.Module | None,
                  reads: dict[str, str] | None) -> list[Finding]:
    own_tree = False
    if tree is None:
        too_large = too_large_text(source)
        if too_large:
            return [_tool_finding(path, INTERNAL_ERROR, 1, 1, too_large)] if INTERNAL_ERROR in options.codes else []
        tree = parsed_modules.tree_for(path, source)
        try:
            if tree is None:
                tree = parse(source, path)
                own_tree = True
        except ParseFailure as failure:
            code = SYNTAX_ERROR if failure.syntax else INTERNAL_ERROR
            if code not in options.codes:
                return []
            finding = _tool_finding(path, code, failure.line, failure.column, failure.message)
            # Valid code for a newer Python: not analysed, said at info, not an error in the user's code.
            return [replace(finding, severity=Severity.INFO) if failure.newer else finding]

    imports = ImportTable.from_tree(tree)
    selected = _selected(options.codes)
    rules = _applicable(imports, selected)
    try:
        with room_to_recurse():
            findings = _run_rules(path, source, tree, imports, rules, options, reads, selected, own_tree) \
                if rules or might_launch_imported_kernels(source) else []
    except Exception as error:  # the model failed (e.g. a pathological file): report, go on
        if INTERNAL_ERROR not in options.codes:
            return []
        return [_tool_finding(path, INTERNAL_ERROR, 1, 1, f"file not checked: {type(error).__name__}: {error}")]
    if not findings and (UNUSED_SUPPRESSION not in options.codes or not _may_name_our_rules(source)):
        return []
    return group_by_cause(_apply_suppressions(path, source, findings, options))


def _selected(codes: frozenset[str]) -> list[type[Rule]]:
    """The rules ``codes`` selects, in the engine's order (once per selection, not per file)."""
    registered = all_rules()
    found = _SELECTED.get((codes, registered))
    if found is None:
        if len(_SELECTED) > 64:
            _SELECTED.clear()
        found = _SELECTED[codes, registered] = [r for r in registered if r.code in codes and r.code not in _TOOL_CODES]
    return list(found)


_SELECTED: dict[tuple[frozenset[str], tuple[type[Rule], ...]], list[type[Rule]]] = {}


@lru_cache(maxsize=64)
def _node_types(rules: tuple[type[Rule], ...]) -> frozenset[type[ast.AST]]:
    """The node types ``rules`` declare: what the file model buckets in its one walk (once per
    selection, not per file)."""
    return frozenset(t for rule in rules for t in rule.node_types)


def _applicable(imports: ImportTable, rules: list[type[Rule]]) -> list[type[Rule]]:
    """The rules whose DSLs the file imports: a file that imports none needs no model at all.
    The imports are read once per combination of DSLs, not once per rule."""
    in_scope: dict[tuple[str, ...], bool] = {}
    found = []
    for rule in rules:
        dsls = rule.dsls()
        scoped = in_scope.get(dsls)
        if scoped is None:
            scoped = in_scope[dsls] = _imports_scope(imports, dsls)
        if scoped:
            found.append(rule)
    return found


def _launcher_rules(ctx: FileContext, selected: list[type[Rule]], running: list[type[Rule]]) -> list[type[Rule]]:
    """Triton rules for a file that does not import Triton but launches a Triton kernel another
    module defines (the host half of those rules reads the launch)."""
    triton_rules = [r for r in selected if "triton" in r.dsls() and r not in running]
    if not triton_rules or not ctx.launches_of("triton", imported=True):
        return []
    return triton_rules


def _imports_scope(imports: ImportTable, dsls: tuple[str, ...]) -> bool:
    roots = [import_roots(dsl) for dsl in dsls]
    return any(not r for r in roots) or any(imports.imports_any(*r) for r in roots)


def nodes_checked(rule: Rule, ctx: FileContext) -> Iterable[ast.AST]:
    """The nodes ``rule.check`` is called with, type by type in ``rule.node_types``: every node of
    the type, except that the calls are only those ``rule.calls`` names when it names any."""
    for node_type in rule.node_types:
        yield from ctx.calls_to(rule.calls) if rule.calls and node_type is ast.Call else ctx.nodes(node_type)


def _run_rules(path: str, source: str, tree: ast.Module, imports: ImportTable,
               rules: list[type[Rule]], options: Options, reads: dict[str, str] | None = None,
               selected: list[type[Rule]] = (), own_tree: bool = False, split: bool = True) -> list[Finding]:
    """Every selected rule's findings on the file. Unless kernel findings are kept, nothing
    outlives the check: the file's model is taken apart afterwards, and with it ``tree`` when
    the engine parsed it itself (``FileContext.dismantle``)."""
    findings: list[Finding] = []
    wanted = _node_types(tuple(selected))  # the running rules are among the selected ones
    ctx = FileContext(path, source, tree, wanted, imports, options.target_sm, options.target_versions)
    if might_launch_imported_kernels(source):
        rules = [*rules, *_launcher_rules(ctx, list(selected), rules)]
    reuse = _KEPT.for_check(path, source, ctx.tree, ctx.kernels, options) if _KEPT is not None else None
    helper = kernel_split.start(ctx, rules, reuse, _answer(path)) \
        if split and _SPLIT and reuse is not None else None
    try:
        for rule_class in rules:
            try:
                findings.extend(rule_findings(path, rule_class, ctx, reuse, helper))
            except Exception as error:  # a broken rule must not take the others down
                if INTERNAL_ERROR in options.codes:
                    findings.append(_tool_finding(
                        path, INTERNAL_ERROR, 1, 1,
                        f"rule {rule_class.code} ({rule_class.name}) failed: {type(error).__name__}: {error}",
                    ))
        answers = helper.answers() if helper is not None else None
    finally:
        if helper is not None:
            helper.close()
    project_reads = ctx.project_reads()
    if helper is not None:
        if answers is not None and any(isinstance(item, _Later) and (item.code, item.place) not in answers["found"]
                                       for item in findings):
            answers = None  # an answer missing is a child that failed
        if answers is None:  # the child failed: check again in one process, reusing this one's answers
            reuse.done(project_reads)
            return _run_rules(path, source, tree, imports, rules, options, reads, selected, own_tree, split=False)
        findings = _put_in_place(findings, answers["found"], reuse)
        project_reads.update(answers["reads"])
    if reuse is not None:  # kept answers read facts this check did not ask again
        project_reads = reuse.done(project_reads)
    if reads is not None:
        reads.update(project_reads)
    if _KEPT is None:
        ctx.dismantle(own_tree)
    return findings


def rule_findings(path: str, rule_class: type[Rule], ctx: FileContext, reuse: FileCheck | None = None,
                  helper: kernel_split.Helper | None = None) -> list:
    """One rule's findings in a file: ``check`` on each node it wants, ``finish``, then
    ``check_kernel`` on each kernel (from ``reuse`` where the kernel is unchanged; a kernel
    ``helper`` answers leaves a ``_Later`` in its place)."""
    rule = rule_class()
    reports: list[Report] = []
    for node in nodes_checked(rule, ctx):
        reports.extend(rule.check(node, ctx))
    if rule.wants_finish:
        reports.extend(rule.finish(ctx))
    found = [_finding(path, rule_class, r) for r in reports]
    if rule.per_kernel:
        found.extend(_per_kernel(path, rule, ctx, reuse, helper))
    return found


#: Per-kernel findings kept between checks (``keep_kernel_findings``); None: each check is new.
_KEPT: KernelFindings | None = None


def keep_kernel_findings(keep: bool) -> None:
    """Keep per-kernel findings between checks of a file, or stop: the language server keeps
    them while it serves, so a re-check after a keystroke runs the per-kernel rules only on the
    kernels the edit can reach (``kernelint/reuse.py``)."""
    global _KEPT
    _KEPT = KernelFindings() if keep else None


def settle_kept_findings() -> None:
    """Key the kept findings of the last checks now (``reuse.KernelFindings.settle``): the
    language server calls this while it waits for input, else the next check of a file does."""
    if _KEPT is not None:
        _KEPT.settle()


def other_files_may_have_changed() -> None:
    """With ``index.look_again``: a file's kept findings serve again only while the facts its
    last check read from other files still hold (``reuse.KernelFindings.look_again``)."""
    if _KEPT is not None:
        _KEPT.look_again()


def _per_kernel(path: str, rule: Rule, ctx: FileContext, reuse: FileCheck | None,
                helper: kernel_split.Helper | None = None) -> list:
    """``rule.check_kernel`` over the file's kernels of its DSL, each answer kept in ``reuse``
    and taken from it when the kernel is unchanged."""
    rule_class = type(rule)
    answer = _answer(path)
    found: list = []
    for place, kernel in enumerate(ctx.kernels):
        if kernel.dsl != rule.per_kernel:
            continue
        kept = reuse.get(rule_class.code, kernel) if reuse is not None else None
        if kept is not None:
            found.extend(kept.findings)
        elif helper is not None and place in helper.owned:
            found.append(_Later(rule_class.code, kernel, place))
        else:
            findings = answer(ctx, rule, kernel)
            found.extend(findings)
            if reuse is not None:
                reuse.new(rule_class.code, kernel, findings)
    return found


def _answer(path: str):
    """What ``_per_kernel`` does for one kernel not kept: ``rule``'s findings in it."""
    return lambda ctx, rule, kernel: tuple(_finding(path, type(rule), r) for r in rule.check_kernel(kernel, ctx))


@dataclass(frozen=True)
class _Later:
    """Where a forked helper's answer goes (``kernel_split``)."""

    code: str
    kernel: Kernel
    place: int


def _put_in_place(findings: list, answers: dict, reuse: FileCheck) -> list[Finding]:
    placed: list[Finding] = []
    for item in findings:
        if isinstance(item, _Later):
            answer = answers[item.code, item.place]
            placed.extend(answer)
            reuse.new(item.code, item.kernel, answer)
        else:
            placed.append(item)
    return placed


#: Whether the per-kernel work of a whole check is shared with a forked process (the server).
_SPLIT = False


def split_kernel_work(split: bool) -> None:
    """Share a check's per-kernel work with a forked process where it pays (``kernel_split``):
    the language server does, while it serves."""
    global _SPLIT
    _SPLIT = split and kernel_split.available()


def _apply_suppressions(path: str, source: str, findings: list[Finding], options: Options) -> list[Finding]:
    suppressions = parse_suppressions(source)
    if not suppressions:
        return sorted(set(findings))
    kept = _unsuppressed(findings, suppressions, options.noqa_by_caller)
    if UNUSED_SUPPRESSION in options.codes:
        # Last, so that a KL003 can itself be silenced by naming KL003 in the same comment.
        kept.extend(_unsuppressed(list(_unused(path, source, suppressions, options)), suppressions,
                                  options.noqa_by_caller))
    return sorted(set(kept))


def _unsuppressed(findings: list[Finding], suppressions, noqa_by_caller: bool = False) -> list[Finding]:
    kept = []
    for finding in findings:
        covering = [s for s in suppressions if s.covers(finding)]
        for s in covering:
            s.used = True
        if not any(s.ours or not noqa_by_caller for s in covering):
            kept.append(finding)
    return kept


def _named_rules(suppression) -> list[type[Rule]]:
    if suppression.ours:
        rule = find_rule(suppression.key)
        return [rule] if rule else []
    return [rule for rule in all_rules() if rule.code.startswith(suppression.key)]


def _unused(path: str, source: str, suppressions, options: Options) -> Iterable[Finding]:
    from kernelint.edits import drop_suppression

    lines = source.splitlines()
    for s in suppressions:
        if s.used or s.key is None or not (s.ours or s.key.startswith("KL")):
            continue  # a bare noqa, or another tool's code
        named = _named_rules(s)
        line_text = lines[s.line - 1] if s.line <= len(lines) else ""
        # The tokenizer counts characters; findings count UTF-8 bytes, as ast does.
        column = len(line_text[:s.column].encode("utf-8")) + 1
        if not named:
            yield replace(_tool_finding(path, UNUSED_SUPPRESSION, s.line, column,
                                        f"suppression names unknown rule {s.key!r}"),
                          fix=drop_suppression(line_text, s.line, s.column, s.key, s.ours))
        elif any(rule.code in options.codes and rule.code != UNUSED_SUPPRESSION for rule in named):
            label = f"{named[0].code} ({named[0].name})" if len(named) == 1 else s.key
            yield replace(_tool_finding(path, UNUSED_SUPPRESSION, s.line, column,
                                        f"unused suppression: {label} reports nothing here"),
                          fix=drop_suppression(line_text, s.line, s.column, s.key, s.ours))


def check_file(path: str, options: Options) -> list[Finding]:
    try:
        data = read_bytes(path)
    except Unreadable as error:
        return [_tool_finding(path, INTERNAL_ERROR, 1, 1, str(error))] if INTERNAL_ERROR in options.codes else []
    return check_source(path, decode(data), options)

