"""The ``kernelint`` command: check, rules, explain, prove, confirm."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import kernelint
from kernelint.exit_codes import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS
from kernelint.output import text as text_output
from kernelint.terminal import shown

FORMATS = ("text", "json", "sarif", "github")
SEVERITY_ORDER = ("info", "warning", "error")


class UsageError(Exception):
    pass


def _csv(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kernelint",
        description="Static analysis for GPU kernels in Python: Triton, cuTile and CuTe DSL.",
        epilog="Run `kernelint COMMAND --help` for a command's options. Exit codes: 0 clean, "
               "1 findings reported, 2 usage or internal error.",
    )
    parser.add_argument("--version", action="version", version=f"kernelint {kernelint.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="check files and directories for kernel problems",
                                description="Check Python files (directories are searched, "
                                            "honouring .gitignore and `exclude`). `-` reads one "
                                            "file from standard input.")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH",
                       help="files or directories (default: .); - for standard input")
    selection = check.add_argument_group("rule selection")
    selection.add_argument("--select", type=_csv, metavar="CODES",
                           help="comma-separated codes, prefixes (KL2), names or ALL; replaces the config's "
                                "select, ignore and extend-select")
    selection.add_argument("--ignore", type=_csv, metavar="CODES",
                           help="codes, prefixes or names to skip, added to the config's ignore")
    selection.add_argument("--extend-select", type=_csv, metavar="CODES", help="add to the selected rules")
    selection.add_argument("--target-arch", metavar="SM", help="GPU architecture the code targets, e.g. sm_90")
    for flag, what in (("--triton-version", "Triton"), ("--cutlass-dsl-version", "CuTe DSL (nvidia-cutlass-dsl)"),
                       ("--cuda-tile-version", "cuTile (cuda-tile)")):
        selection.add_argument(flag, metavar="X.Y.Z", dest=flag[2:].replace("-", "_"),
                               help=f"{what} release the code targets (default: what the project pins, "
                                    "else the installed one, else the newest kernelint knows)")
    selection.add_argument("--config", metavar="FILE",
                           help="read settings from this pyproject.toml or kernelint.toml only")

    files = check.add_argument_group("files")
    files.add_argument("--force-exclude", action="store_true",
                       help="apply `exclude` to files named on the command line too (for pre-commit "
                            "and editors, which name files one by one)")
    files.add_argument("--stdin-filename", metavar="PATH",
                       help="the name of the file read from standard input: its configuration and "
                            "per-file ignores apply (its exclusion too with --force-exclude), and "
                            "findings carry this name")
    files.add_argument("--show-files", action="store_true", help="list the files that would be checked, and exit")
    files.add_argument("--show-settings", metavar="PATH",
                       help="print the configuration and rules that apply to PATH, and exit")

    report = check.add_argument_group("reporting")
    report.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    report.add_argument("--output-format", choices=text_output.STYLES, dest="output_style", default=None,
                        help="text format: full (a code frame with the span, the fix and the measured "
                             "evidence under each finding) or concise (one line each); default: full on "
                             "a terminal, concise in a pipe or a file")
    report.add_argument("--color", choices=text_output.COLOR_CHOICES, default="auto",
                        help="colour the text format: auto (a terminal, unless NO_COLOR is set or "
                             "FORCE_COLOR is), always or never (default: auto)")
    report.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    report.add_argument("--show-source", action="store_true",
                        help="concise text format: print each finding's line with a caret under it")
    report.add_argument("--show-facts", action="store_true",
                        help="text format: under each finding, the facts it rests on and where each was read "
                             "(JSON and SARIF always carry them)")
    report.add_argument("--statistics", action="store_true",
                        help="print how many findings each rule has instead of the findings")
    report.add_argument("--exit-zero", action="store_true", help="exit 0 even when problems are found")
    report.add_argument("--fail-on", choices=SEVERITY_ORDER, default="info",
                        help="exit 1 only for findings of this severity or worse (default: info, any finding)")

    gate = check.add_argument_group("pull-request gate")
    gate.add_argument("--diff", metavar="REF", dest="diff_ref",
                      help="report only findings on lines added or changed since git revision REF "
                           "(working tree included; untracked files count as new)")
    gate.add_argument("--baseline", metavar="FILE", help="report only findings that FILE does not record")
    gate.add_argument("--write-baseline", metavar="FILE",
                      help="record every finding in FILE (exit 0), for a later --baseline")

    fixing = check.add_argument_group("fixes")
    fixing.add_argument("--fix", action="store_true", help="apply the safe fixes to the files")
    fixing.add_argument("--unsafe-fixes", action="store_true",
                        help="with --fix or --show-fixes, also apply fixes that may change behaviour")
    fixing.add_argument("--show-fixes", action="store_true",
                        help="print the fixes as a unified diff without changing any file (exit 1 if any)")
    fixing.add_argument("--add-noqa", action="store_true",
                        help="add `# noqa: CODE` to every line with a finding (keeping the codes a noqa "
                             "there already names), and exit 0")

    runtime = check.add_argument_group("running")
    runtime.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                         help="parallel worker processes (default: number of CPUs, at most 8; "
                              "never more than the CPUs available)")
    runtime.add_argument("--no-cache", action="store_true",
                         help="neither read nor write the .kernelint_cache directory")

    rules = commands.add_parser("rules", help="list every rule", description="List every rule.")
    rules.add_argument("--format", choices=("text", "json"), default="text")

    explain = commands.add_parser("explain", help="show a rule's full documentation and evidence",
                                  description="Show a rule's documentation, by code or name.")
    explain.add_argument("rule", metavar="CODE-OR-NAME")

    server = commands.add_parser("server", help="run the language server (LSP over standard input and output)",
                                 description="Speak the Language Server Protocol on standard input and "
                                             "output: diagnostics as you type, quick fixes, `# noqa` "
                                             "actions and hover with each rule's doc and evidence. "
                                             "Editors start it; docs/editors.md shows how.")
    server.add_argument("--stdio", action="store_true", help="accepted for editors that pass it (stdio is the only transport)")

    from kernelint.confirm.cli import add_parser as add_confirm

    add_confirm(commands)
    prove = commands.add_parser("prove", help="run reference kernel pairs on a GPU and record the evidence",
                                description="Run the bad/good reference pairs of the given rules "
                                            "(default: all) and report whether each rule's claim holds.")
    prove.add_argument("codes", nargs="*", metavar="CODE")
    prove.add_argument("--json", metavar="FILE", help="write the full record to FILE")
    prove.add_argument("--evidence-dir", metavar="DIR", help="also write one <CODE>.json per rule into DIR")
    prove.add_argument("--interpret", action="store_true",
                       help="run Triton compile/numerics pairs on the CPU under TRITON_INTERPRET=1")
    prove.add_argument("--timeout", type=float, default=None, metavar="S",
                       help="override every pair's watchdog seconds")
    prove.add_argument("--report", metavar="DIR",
                       help="run nothing: write DIR/index.html and DIR/charts/ from measured records "
                            "(the committed ones, or --records)")
    prove.add_argument("--records", metavar="PATH",
                       help="with --report: a --json run file or a folder of <CODE>.json records")
    prove.add_argument("--chart-format", choices=("svg", "png"), default="svg",
                       help="with --report: image format of the charts (default svg)")
    return parser


def _with_flags(settings, args):
    """Command-line flags override the config; --select starts the selection afresh (as in
    ruff), so the config's ignore and extend-select no longer apply (per-file-ignores do)."""
    if args.select is not None:
        if not args.select:
            raise UsageError("--select '' selects no rule; leave --select out for the configured rules")
        settings = settings.overridden(select=tuple(args.select), ignore=(), extend_select=())
    from kernelint.config import with_target_versions

    settings = with_target_versions(settings, {
        "--triton-version": getattr(args, "triton_version", None),
        "--cutlass-dsl-version": getattr(args, "cutlass_dsl_version", None),
        "--cuda-tile-version": getattr(args, "cuda_tile_version", None),
    })
    return settings.overridden(
        ignore=(*settings.ignore, *args.ignore) if args.ignore else None,
        extend_select=(*settings.extend_select, *args.extend_select) if args.extend_select else None,
        target_arch=args.target_arch,
    )


def _reading_stdin(args) -> bool:
    return args.paths == ["-"]


def _settings(args, start: Path | None = None):
    from kernelint.config import compute_capability, load_settings, read_settings

    compute_capability(args.target_arch)  # a bad --target-arch is a usage error before any work
    if args.config:
        config = Path(args.config)
        if not config.is_file():
            raise UsageError(f"config file not found: {args.config}")
        return _with_flags(read_settings(config), args)
    if start is None:
        start = Path(args.paths[0]) if args.paths else Path.cwd()
    return _with_flags(load_settings(start if start.exists() else Path.cwd()), args)


def _by_config(files: list[str], settings, args) -> dict:
    """Files grouped by the settings that apply to them: each file follows its nearest
    configuration (as the flake8 and pylint plugins do) unless --config names one."""
    from kernelint.config import NearestConfigs, load_settings
    from kernelint.model.project.index import ResolvedFolders

    if args.config:
        return {settings: files}
    nearest: dict[Path, object] = {}
    groups: dict = {}
    folder_of, config_of = ResolvedFolders(), NearestConfigs()  # one resolve and climb per folder
    for path in files:
        directory = folder_of(path)
        if directory not in nearest:
            same = config_of(directory) == settings.source
            nearest[directory] = settings if same else _with_flags(load_settings(directory), args)
        groups.setdefault(nearest[directory], []).append(path)
    return groups


def _renderer(fmt: str):
    if fmt == "text":
        from kernelint.output.text import render
    elif fmt == "json":
        from kernelint.output.json_format import render
    elif fmt == "sarif":
        from kernelint.output.sarif import render
    else:
        from kernelint.output.github import render
    return render


def _emit(text: str, args) -> None:
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {args.output}: {error.strerror or error}") from None
    elif sys.stdout is None:  # started with stdout closed (`>&-`)
        raise UsageError("cannot write the report: standard output is closed (use -o FILE)")
    else:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            raise
        except OSError as error:  # e.g. a full disk; keep the exit-time flush from failing again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise UsageError(f"cannot write the report to standard output: {error.strerror or error}") from None


def _check_stdin(args, rules, sources):
    """One buffer from standard input, checked as if it were the file --stdin-filename names;
    the options are None when --force-exclude excludes that file."""
    from kernelint.config import is_excluded, selected_codes
    from kernelint.engine import INTERNAL_ERROR, _tool_finding, check_source, decode
    from kernelint.frontend import options_for
    from kernelint.reading import Unreadable, read_stream

    name = args.stdin_filename or "-"
    start = Path(name).resolve().parent if args.stdin_filename else Path.cwd()
    settings = _settings(args, start)
    _configured_style(args, settings)
    _publish_docs_url(settings)
    selected_codes(settings, rules)
    try:
        data = read_stream(sys.stdin.buffer)
    except Unreadable as why:  # over the size bound: reported as a file on disk would be
        if args.fix or args.show_fixes:
            raise UsageError(f"standard input: {why}; nothing was fixed") from None
        options = options_for(name, settings, force_exclude=False)
        return name, [_tool_finding(name, INTERNAL_ERROR, 1, 1, str(why))] if INTERNAL_ERROR in options.codes else [], "", options
    source = decode(data)
    sources.add(name, source)
    if args.force_exclude and args.stdin_filename and is_excluded(settings, Path(name)):
        return name, [], source, None
    options = options_for(name, settings, force_exclude=False)
    from kernelint.severities import apply

    return name, apply(check_source(name, source, options), settings.severity), source, options


def _files(args, settings):
    from kernelint.config import is_excluded
    from kernelint.discovery import discover

    files, missing = discover(args.paths, settings)
    if missing:
        raise UsageError("no such file or directory: " + ", ".join(missing))
    if args.force_exclude:
        named = {os.path.normpath(p) for p in args.paths if Path(p).is_file()}
        groups = _by_config(files, settings, args)
        files = sorted(
            path for group, paths in groups.items() for path in paths
            if not (os.path.normpath(path) in named and is_excluded(group, Path(path)))
        )
    return files


def _show_settings(args, rules) -> int:
    from kernelint.config import is_excluded, selected_codes
    from kernelint.frontend import options_for
    from kernelint.versions import SETTINGS, targets_for_settings

    path = Path(args.show_settings)
    settings = _settings(args, path.resolve().parent if not path.is_dir() else path)
    selected = selected_codes(settings, rules)
    options = options_for(str(path), settings)
    targets = targets_for_settings(path / "__init__.py" if path.is_dir() else path, settings)
    excluded = is_excluded(settings, path)
    lines = [
        f"file: {path}",
        f"configuration: {settings.source or '(none found; defaults)'}",
        f"root: {settings.root}",
        f"select: {list(settings.select) if settings.select is not None else '(default-on rules)'}",
        f"extend-select: {list(settings.extend_select)}",
        f"ignore: {list(settings.ignore)}",
        f"per-file-ignores: {dict(settings.per_file_ignores)}",
        f"exclude: {list(settings.exclude)}",
        f"target-arch: {settings.target_arch}",
        *(f"{SETTINGS[target.dsl][0]}: {target.text} ({target.source})"
          for target in (targets.triton, targets.cute, targets.cutile)),
        f"severity: {dict((key, value.value) for key, value in settings.severity)}",
        f"output-format: {settings.output_format or '(full on a terminal, concise otherwise)'}",
        f"excluded: {'yes (skipped in a directory walk and with --force-exclude)' if excluded else 'no'}",
        f"selected rules: {', '.join(sorted(selected))}",
        f"rules run on this file: {', '.join(sorted(options.codes)) or '(none)'}",
    ]
    if args.format == "json":
        print(json.dumps({
            "file": str(path), "configuration": str(settings.source) if settings.source else None,
            "root": str(settings.root), "select": list(settings.select) if settings.select is not None else None,
            "extend-select": list(settings.extend_select), "ignore": list(settings.ignore),
            "per-file-ignores": {pattern: list(codes) for pattern, codes in settings.per_file_ignores},
            "exclude": list(settings.exclude), "target-arch": settings.target_arch,
            "targets": {SETTINGS[t.dsl][0]: {"version": str(t.text), "source": str(t.source)}
                        for t in (targets.triton, targets.cute, targets.cutile)},
            "severity": {key: value.value for key, value in settings.severity}, "excluded": excluded,
            "output-format": settings.output_format,
            "selected-rules": sorted(selected), "rules-run": sorted(options.codes),
        }, indent=2))
        return EXIT_CLEAN
    print("\n".join(lines))
    return EXIT_CLEAN


def _configured_style(args, settings) -> None:
    """The configuration's ``output-format`` applies to the text format when the command line
    names none (after the options are validated: it never clashes with ``--format json``)."""
    if args.output_style is None and args.format == "text" and not args.show_source:
        args.output_style = settings.output_format


def _check_reporting_options(args) -> None:
    """Combinations that would silently ignore an option are refused before any work."""
    if args.statistics and args.format == "sarif":
        raise UsageError("--statistics writes text, json or github; SARIF carries the findings "
                         "themselves (drop --statistics)")
    listing = [flag for flag, on in (("--show-files", args.show_files), ("--show-settings", args.show_settings),
                                     ("--show-fixes", args.show_fixes)) if on]
    if listing and args.format not in ("text", "json") or listing == ["--show-fixes"] and args.format != "text":
        raise UsageError(f"{listing[0]} writes text" + (" or json" if listing[0] != "--show-fixes" else " (a diff)")
                         + f", not {args.format}")
    if args.output_style and args.format != "text":
        raise UsageError(f"--output-format {args.output_style} shapes the text format, not {args.format}")
    if args.add_noqa:
        clash = [flag for flag, on in (("--fix", args.fix), ("--show-fixes", args.show_fixes),
                                       ("--statistics", args.statistics),
                                       ("--write-baseline", args.write_baseline),
                                       ("standard input", _reading_stdin(args))) if on]
        if clash:
            raise UsageError(f"--add-noqa edits the checked files; it cannot be combined with {clash[0]}")


def _check(args) -> int:
    from kernelint.config import env_jobs, selected_codes
    from kernelint.rules import all_rules
    from kernelint.severities import apply_by_settings
    from kernelint.sources import Sources

    rules = all_rules()
    if args.stdin_filename and not _reading_stdin(args):
        if args.paths != ["."]:
            raise UsageError("--stdin-filename reads standard input: pass - as the only path")
        args.paths = ["-"]
    if "-" in args.paths and not _reading_stdin(args):
        raise UsageError("- (standard input) cannot be mixed with other paths")
    _check_reporting_options(args)
    if args.show_settings:
        return _show_settings(args, rules)
    jobs = args.jobs if args.jobs is not None else env_jobs()
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.unsafe_fixes and not (args.fix or args.show_fixes):
        raise UsageError("--unsafe-fixes goes with --fix or --show-fixes")

    sources = Sources()
    if _reading_stdin(args):
        _refuse_to_overwrite_a_checked_file(args.output, [args.stdin_filename] if args.stdin_filename else [])
        name, findings, source, options = _check_stdin(args, rules, sources)
        files = [name]
        if args.fix or args.show_fixes:
            from kernelint.fixes import fix_stdin

            return fix_stdin(args, name, source, options)
    else:
        settings = _settings(args)
        _configured_style(args, settings)
        _publish_docs_url(settings)
        selected_codes(settings, rules)  # validates selectors before any work
        files = _files(args, settings)
        _refuse_to_overwrite_a_checked_file(args.output, files)
        if args.show_files:
            sys.stdout.write(json.dumps(files, indent=2) + "\n" if args.format == "json"
                             else "".join(f"{shown(path)}\n" for path in files))
            return EXIT_CLEAN
        if not files:
            print("kernelint: warning: no Python files found under " + ", ".join(args.paths), file=sys.stderr)
        groups = _by_config(files, settings, args)
        for group_settings in groups:
            selected_codes(group_settings, rules)  # every config is valid before any work
        if args.fix or args.show_fixes:
            from kernelint.fixes import fix_files

            findings, changed = fix_files(groups, args)
            findings = apply_by_settings(findings, groups)
            if args.show_fixes:
                return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_CLEAN
        else:
            from kernelint.runner import check_groups

            findings = apply_by_settings(check_groups(groups, jobs, use_cache=not args.no_cache), groups)
    return _report(args, findings, files, rules, sources)


def _refuse_to_overwrite_a_checked_file(output: str | None, files: list[str]) -> None:
    """``-o k.py`` where k.py is checked would replace the user's code with the report."""
    if not output:
        return
    target = os.path.realpath(output)
    for path in files:
        if os.path.realpath(path) == target:
            raise UsageError(f"-o {output} is a file being checked; the report would overwrite it "
                             "(write the report to another file)")


def _report(args, findings, files, rules, sources) -> int:
    if args.diff_ref:
        from kernelint.gitdiff import GitError, changed_lines, touches

        try:
            changed = changed_lines(args.diff_ref, Path.cwd())
        except GitError as error:
            raise UsageError(f"--diff {args.diff_ref}: {error}") from None
        # A grouped finding is in the change when any site of its cause is (issue 21).
        findings = [f for f in findings if any(touches(changed, s.path, s.line, s.end_line)
                                               for s in (f, *f.related))]
    if args.write_baseline:
        from kernelint.baseline import write

        write(Path(args.write_baseline), findings, sources)
        print(f"kernelint: recorded {len(findings)} finding{'s' if len(findings) != 1 else ''} "
              f"in {args.write_baseline}", file=sys.stderr)
        return EXIT_CLEAN
    if args.baseline:
        from kernelint.baseline import new_findings

        findings = new_findings(findings, Path(args.baseline), sources)

    threshold = SEVERITY_ORDER.index(args.fail_on)
    failing = any(SEVERITY_ORDER.index(f.severity.value) >= threshold for f in findings)
    status = EXIT_FINDINGS if failing and not args.exit_zero else EXIT_CLEAN
    if args.add_noqa:
        return _add_noqa(findings)
    if args.statistics:
        from kernelint.output import statistics

        _emit(statistics.render(findings, args.format), args)
        return status
    from kernelint.output.text import default_style, use_colour

    text_format = args.format == "text"
    colour = text_format and (args.color == "always" or (not args.output and use_colour(sys.stdout, args.color)))
    style = args.output_style or ("concise" if args.show_source else default_style(sys.stdout, bool(args.output)))
    text = _renderer(args.format)(findings, rules, style=style, show_source=args.show_source, colour=colour,
                                  sources=sources, exit_code=status, show_facts=args.show_facts)
    _emit(text, args)
    if args.format == "text" and not findings and not args.output and sys.stdout.isatty():
        print(f"All checks passed ({len(files)} file{'s' if len(files) != 1 else ''}).")
    return status


def _add_noqa(findings) -> int:
    from kernelint.noqa import add_noqa

    result = add_noqa(findings)
    for path, line, why in result.skipped:
        print(f"kernelint: {path}:{line}: no noqa added: {why}", file=sys.stderr)
    added = result.added
    print(f"kernelint: added {added} noqa directive{'s' if added != 1 else ''} "
          f"to {result.files} file{'s' if result.files != 1 else ''}.", file=sys.stderr)
    return EXIT_CLEAN


def _publish_docs_url(settings=None) -> None:
    """Rule doc addresses come from the configuration's ``docs-url`` (none when it is unset)."""
    from kernelint import docs
    from kernelint.config import ConfigError, load_settings

    if settings is None:
        try:
            settings = load_settings(Path.cwd())
        except ConfigError:  # `rules` and `explain` still work in a folder with a broken config
            return
    docs.publish_at(settings.docs_url)


def _rules(args) -> int:
    from kernelint import precision
    from kernelint.docs import rule_url
    from kernelint.rules import all_rules, pylint_message, pylint_messages

    _publish_docs_url()
    rows = []
    for rule in all_rules():
        msgid, symbol = pylint_message(rule)
        rows.append({
            "code": rule.code, "name": rule.name, "dsl": rule.dsl, "family": rule.family,
            "severity": rule.severity.value, "other_severities": [s.value for s in rule.other_severities],
            "confidence": rule.confidence.value,
            "default": rule.default_enabled, "evidence_class": rule.evidence_class,
            "pylint_id": msgid, "pylint_symbol": symbol, "summary": rule.summary, "url": rule_url(rule.code),
            "corpus_precision": _precision_field(precision.of(rule.code)),
        })
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return EXIT_CLEAN
    print(f"{'code':<6} {'name':<36} {'dsl':<7} {'severity':<8} {'default':<7} {'evidence':<9} "
          f"{'corpus precision':<17} pylint")
    for row, rule in zip(rows, all_rules()):
        pylint = "/".join(msgid for _, msgid, _ in pylint_messages(rule))
        print(f"{row['code']:<6} {row['name']:<36} {row['dsl']:<7} {row['severity']:<8} "
              f"{'on' if row['default'] else 'off':<7} {row['evidence_class']:<9} "
              f"{precision.figure(rule.code):<17} {pylint}")
    return EXIT_CLEAN


def _precision_field(found) -> dict | None:
    """``kernelint rules --format json``: the rule's corpus precision (docs/precision.md), or null
    when it was never measured; ``precision`` is null when the corpus gave the rule no finding."""
    if found is None:
        return None
    return {"judged": found.judged, "true_or_latent": found.good, "precision": found.ratio,
            "repositories": list(found.repositories), "source": found.source}


def _explain(args) -> int:
    from kernelint.docs import render, rule_url
    from kernelint.rules import find_rule

    rule = find_rule(args.rule)
    if rule is None:
        from kernelint.rules import all_rules
        from kernelint.suggest import closest

        rules = all_rules()
        near = closest(args.rule, [r.code for r in rules] + [r.name for r in rules])
        near_rule = find_rule(near) if near else None
        hint = f" (did you mean {near_rule.code}, {near_rule.name}?)" if near_rule else ""
        raise UsageError(f"unknown rule {args.rule!r}{hint}; `kernelint rules` lists them")
    sys.stdout.write(render(rule))
    _publish_docs_url()
    if rule_url(rule.code):  # only where the team's configuration says where it hosts the docs
        sys.stdout.write(f"\nOnline: {rule_url(rule.code)}\n")
    return EXIT_CLEAN


def _server(args) -> int:
    from kernelint.lsp.server import main as serve

    return serve()


def _prove(args) -> int:
    from kernelint.prove.cli import run

    return run(args)


def _confirm(args) -> int:
    from kernelint.confirm.cli import run

    return run(args)


def run() -> None:
    """The ``kernelint`` command: ``main()``, then leave without tearing the interpreter down, as
    mypy does: freeing every kept tree and file model one object at a time took longer than
    checking a small project (cutile-python: 0.7 of 2.1 s). Output is flushed first. Under a
    profiler or tracer (cProfile, coverage) it exits the usual way, so they can write their data."""
    code = main()
    if sys.getprofile() is not None or sys.gettrace() is not None:
        raise SystemExit(code)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: main has said what it could
            pass
    os._exit(int(code or 0))


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    handler = {"check": _check, "rules": _rules, "explain": _explain, "prove": _prove, "confirm": _confirm,
               "server": _server}[args.command]
    try:
        return handler(args)
    except UsageError as error:
        print(f"kernelint: error: {shown(str(error))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        try:
            print("kernelint: interrupted; nothing was reported", file=sys.stderr, flush=True)
        except (OSError, ValueError, AttributeError):  # stderr closed
            pass
        return EXIT_ERROR
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as error:  # the user never sees a traceback
        from kernelint.baseline import BaselineError
        from kernelint.config import ConfigError

        if isinstance(error, (ConfigError, BaselineError)):
            print(f"kernelint: error: {shown(str(error))}", file=sys.stderr)
        else:
            print(f"kernelint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_ERROR
