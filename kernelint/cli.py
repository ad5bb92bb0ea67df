"""The ``kernelint`` command: check, rules, explain, prove."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import kernelint

FORMATS = ("text", "json", "sarif", "github")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


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
                                            "honouring .gitignore and `exclude`).")
    check.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="files or directories (default: .)")
    check.add_argument("--select", type=_csv, metavar="CODES",
                       help="comma-separated codes, prefixes (KL2), names or ALL; replaces the config's "
                            "select, ignore and extend-select")
    check.add_argument("--ignore", type=_csv, metavar="CODES",
                       help="codes, prefixes or names to skip, added to the config's ignore")
    check.add_argument("--extend-select", type=_csv, metavar="CODES", help="add to the selected rules")
    check.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    check.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when problems are found")
    check.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                       help="parallel worker processes (default: number of CPUs, at most 8)")
    check.add_argument("--target-arch", metavar="SM", help="GPU architecture the code targets, e.g. sm_90")
    check.add_argument("--config", metavar="PYPROJECT", help="read [tool.kernelint] from this file")
    check.add_argument("--no-cache", action="store_true",
                       help="neither read nor write the .kernelint_cache directory")

    rules = commands.add_parser("rules", help="list every rule", description="List every rule.")
    rules.add_argument("--format", choices=("text", "json"), default="text")

    explain = commands.add_parser("explain", help="show a rule's full documentation and evidence",
                                  description="Show a rule's documentation, by code or name.")
    explain.add_argument("rule", metavar="CODE-OR-NAME")

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
    return parser


def _with_flags(settings, args):
    """Command-line flags override the config; --select starts the selection afresh (as in
    ruff), so the config's ignore and extend-select no longer apply (per-file-ignores do)."""
    if args.select is not None:
        settings = settings.overridden(select=tuple(args.select), ignore=(), extend_select=())
    return settings.overridden(
        ignore=(*settings.ignore, *args.ignore) if args.ignore else None,
        extend_select=(*settings.extend_select, *args.extend_select) if args.extend_select else None,
        target_arch=args.target_arch,
    )


def _settings(args):
    from kernelint.config import compute_capability, load_settings, read_settings

    compute_capability(args.target_arch)  # a bad --target-arch is a usage error before any work
    if args.config:
        config = Path(args.config)
        if not config.is_file():
            raise UsageError(f"config file not found: {args.config}")
        return _with_flags(read_settings(config), args)
    start = Path(args.paths[0]) if args.paths else Path.cwd()
    return _with_flags(load_settings(start if start.exists() else Path.cwd()), args)


def _by_config(files: list[str], settings, args) -> dict:
    """Files grouped by the settings that apply to them: each file follows its nearest
    ``[tool.kernelint]`` (as the flake8 and pylint plugins do) unless --config names one."""
    from kernelint.config import find_pyproject, load_settings

    if args.config:
        return {settings: files}
    nearest: dict[Path, object] = {}
    groups: dict = {}
    for path in files:
        directory = Path(path).resolve().parent
        if directory not in nearest:
            same = find_pyproject(directory) == settings.source
            nearest[directory] = settings if same else _with_flags(load_settings(directory), args)
        groups.setdefault(nearest[directory], []).append(path)
    return groups


def _render(fmt: str, findings, rules) -> str:
    if fmt == "text":
        from kernelint.output.text import render
    elif fmt == "json":
        from kernelint.output.json_format import render
    elif fmt == "sarif":
        from kernelint.output.sarif import render
    else:
        from kernelint.output.github import render
    return render(findings, rules)


def _check(args) -> int:
    from kernelint.config import env_jobs, selected_codes
    from kernelint.discovery import discover
    from kernelint.rules import all_rules
    from kernelint.runner import check_groups

    settings = _settings(args)
    selected_codes(settings, all_rules())  # validates selectors before any work
    files, missing = discover(args.paths, settings)
    if missing:
        raise UsageError("no such file or directory: " + ", ".join(missing))
    jobs = args.jobs if args.jobs is not None else env_jobs()
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    groups = _by_config(files, settings, args)
    for group_settings in groups:
        selected_codes(group_settings, all_rules())  # every config is valid before any work
    findings = check_groups(groups, jobs, use_cache=not args.no_cache)
    text = _render(args.format, findings, all_rules())
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {args.output}: {error.strerror or error}") from None
    else:
        sys.stdout.write(text)
    if args.format == "text" and not findings and sys.stdout.isatty():
        print(f"All checks passed ({len(files)} files).")
    return EXIT_FINDINGS if findings and not args.exit_zero else EXIT_CLEAN


def _rules(args) -> int:
    from kernelint.rules import all_rules, pylint_message

    rows = []
    for rule in all_rules():
        msgid, symbol = pylint_message(rule)
        rows.append({
            "code": rule.code, "name": rule.name, "dsl": rule.dsl, "family": rule.family,
            "severity": rule.severity.value, "confidence": rule.confidence.value,
            "default": rule.default_enabled, "evidence_class": rule.evidence_class,
            "pylint_id": msgid, "pylint_symbol": symbol, "summary": rule.summary,
        })
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return EXIT_CLEAN
    print(f"{'code':<6} {'name':<36} {'dsl':<7} {'severity':<8} {'default':<7} evidence")
    for row in rows:
        print(f"{row['code']:<6} {row['name']:<36} {row['dsl']:<7} {row['severity']:<8} "
              f"{'on' if row['default'] else 'off':<7} {row['evidence_class']}")
    return EXIT_CLEAN


def _explain(args) -> int:
    from kernelint.docs import render
    from kernelint.rules import find_rule

    rule = find_rule(args.rule)
    if rule is None:
        raise UsageError(f"unknown rule {args.rule!r}; `kernelint rules` lists them")
    sys.stdout.write(render(rule))
    return EXIT_CLEAN


def _prove(args) -> int:
    from kernelint.prove.cli import run

    return run(args)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    handler = {"check": _check, "rules": _rules, "explain": _explain, "prove": _prove}[args.command]
    try:
        return handler(args)
    except UsageError as error:
        print(f"kernelint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as error:  # the user never sees a traceback
        from kernelint.config import ConfigError

        if isinstance(error, ConfigError):
            print(f"kernelint: error: {error}", file=sys.stderr)
        else:
            print(f"kernelint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_ERROR
