"""Apply the fixes rules attach to their findings (``--fix``, ``--unsafe-fixes``, ``--show-fixes``).

A rule's fix is a set of text edits (1-based lines, 0-based columns counted as ``ast`` counts
them, in UTF-8 bytes) that must all apply together. Fixes whose edits overlap one already
taken wait for the next round; after each round the file is checked again, until no fix
applies or ten rounds have passed. A round whose result no longer parses is thrown away, so a
fix can never leave a file broken. Only the edited spans change: comments and formatting
elsewhere stay byte for byte.
"""
from __future__ import annotations

import ast
import difflib
import io
import sys
import tokenize
import warnings
from dataclasses import dataclass
from pathlib import Path

from kernelint.findings import Finding
from kernelint import terminal

MAX_ROUNDS = 10


@dataclass
class FileResult:
    path: str
    original: str
    fixed: str
    findings: list[Finding]
    applied: int
    unsafe_left: int


def fix_of(finding: Finding):
    return getattr(finding, "fix", None)


def _offsets(source: str) -> list[int]:
    """Character offset of the start of each line (index 0 is line 1)."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _position(source: str, starts: list[int], line: int, col: int) -> int:
    """Character offset of (line, UTF-8 byte column)."""
    if line - 1 >= len(starts) - 1:
        return len(source)
    begin = starts[line - 1]
    text = source[begin:starts[line]]
    return begin + len(text.encode("utf-8")[:col].decode("utf-8", errors="ignore"))


def _spans(source: str, starts: list[int], fix) -> list[tuple[int, int, str]]:
    return sorted(
        (_position(source, starts, e.line, e.col), _position(source, starts, e.end_line, e.end_col), e.replacement)
        for e in fix.edits
    )


def apply_once(source: str, findings: list[Finding], unsafe: bool) -> tuple[str, int]:
    """The source with every non-overlapping applicable fix applied, and how many were."""
    starts = _offsets(source)
    taken: list[tuple[int, int, str]] = []
    applied = 0
    seen = set()
    for finding in findings:
        fix = fix_of(finding)
        if fix is None or not fix.edits or (not fix.safe and not unsafe):
            continue
        spans = _spans(source, starts, fix)
        key = tuple(spans)
        if key in seen:  # two findings, one fix (e.g. one table flagged twice)
            continue
        if any(s < e2 and s2 < e or (s == e == s2 == e2) for s, e, _ in spans for s2, e2, _ in taken):
            continue
        seen.add(key)
        taken.extend(spans)
        applied += 1
    for start, end, replacement in sorted(taken, reverse=True):
        source = source[:start] + replacement + source[end:]
    return source, applied


def _parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def fix_source(path: str, source: str, options, unsafe: bool) -> FileResult:
    from kernelint.engine import check_source

    findings = check_source(path, source, options)
    fixed, applied = source, 0
    for _ in range(MAX_ROUNDS):
        candidate, count = apply_once(fixed, findings, unsafe)
        if not count or not _parses(candidate):
            break
        fixed, applied = candidate, applied + count
        findings = check_source(path, fixed, options)
    unsafe_left = sum(1 for f in findings if fix_of(f) is not None and not fix_of(f).safe and not unsafe)
    return FileResult(path, source, fixed, findings, applied, unsafe_left)


def unified_diff(result: FileResult) -> str:
    """The change as ``git apply`` / ``patch -p1`` read it, from the working directory."""
    shown = Path(result.path)
    if shown.is_absolute():
        try:
            shown = shown.relative_to(Path.cwd())
        except ValueError:
            pass
    name = shown.as_posix().lstrip("/")
    return "".join(difflib.unified_diff(
        result.original.splitlines(keepends=True), result.fixed.splitlines(keepends=True),
        fromfile=f"a/{name}", tofile=f"b/{name}",
    ))


def _read(path: str) -> tuple[str, str] | None:
    try:
        data = Path(path).read_bytes()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), encoding
    except (OSError, SyntaxError, LookupError, UnicodeDecodeError):
        return None  # reported as a finding by the normal check


def _summary(results: list[FileResult], wrote: bool) -> None:
    applied = sum(r.applied for r in results)
    files = sum(1 for r in results if r.applied)
    unsafe = sum(r.unsafe_left for r in results)
    verb = "Fixed" if wrote else "Would fix"
    if applied or wrote is False:
        print(f"kernelint: {verb} {applied} problem{'s' if applied != 1 else ''} "
              f"in {files} file{'s' if files != 1 else ''}.", file=sys.stderr)
    if unsafe:
        print(f"kernelint: {unsafe} more fix{'es' if unsafe != 1 else ''} available with --unsafe-fixes.",
              file=sys.stderr)


def fix_files(groups: dict, args) -> tuple[list[Finding], int]:
    """Fix (or, with --show-fixes, show the fixes for) every file; the findings left and the
    number of files a fix changes. Files are fixed one after another: each fix round re-checks
    its file, and a pre-commit or editor run names few files."""
    from kernelint.config import codes_for_file, selected_codes
    from kernelint.engine import Options, check_file
    from kernelint.rules import all_rules
    from kernelint.versions import targets_for_settings

    rules = all_rules()
    results: list[FileResult] = []
    findings: list[Finding] = []
    for settings, paths in groups.items():
        selected = selected_codes(settings, rules)
        for path in paths:
            options = Options(codes_for_file(settings, selected, Path(path), rules), settings.target_arch,
                              targets_for_settings(path, settings))
            read = _read(path)
            if read is None:
                findings.extend(check_file(path, options))
                continue
            source, encoding = read
            result = fix_source(path, source, options, args.unsafe_fixes)
            results.append(result)
            findings.extend(result.findings)
            if result.fixed == source:
                continue
            if args.show_fixes:
                sys.stdout.write(unified_diff(result))
            else:
                with open(path, "w", encoding=encoding, newline="") as handle:
                    handle.write(result.fixed)
    _summary(results, wrote=not args.show_fixes)
    from kernelint.grouping import group_across_files
    from kernelint.model.project.index import project_root

    return group_across_files(findings, project_root), sum(1 for r in results if r.fixed != r.original)


def fix_stdin(args, name: str, source: str, options) -> int:
    """Standard input: --fix writes the fixed buffer to stdout (what an editor's format-on-save
    wants) and the remaining findings to stderr; --show-fixes writes the diff. ``options`` is
    None for an excluded file, which passes through unchanged."""
    from kernelint.exit_codes import EXIT_CLEAN, EXIT_FINDINGS

    if options is None:
        result = FileResult(name, source, source, [], 0, 0)
    else:
        result = fix_source(name, source, options, args.unsafe_fixes)
    if args.show_fixes:
        sys.stdout.write(unified_diff(result))
        return EXIT_FINDINGS if result.fixed != source and not args.exit_zero else EXIT_CLEAN
    sys.stdout.write(result.fixed)
    for f in result.findings:
        print(f"{terminal.shown(f.path)}:{f.line}:{f.column}: {f.code} {f.message} [{f.name}]", file=sys.stderr)
    return EXIT_FINDINGS if result.findings and not args.exit_zero else EXIT_CLEAN
