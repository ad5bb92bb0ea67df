"""``kernelint confirm PATH:LINE[:CODE]`` and ``--from report.json``."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from kernelint.confirm.entry import LocateError, locate
from kernelint.confirm.generate import apply_settings, generate

_WHERE = re.compile(r"^(?P<path>.+?):(?P<line>\d+)(?::(?P<code>KL\d{3}))?$")


def add_parser(commands) -> None:
    confirm = commands.add_parser(
        "confirm", help="write (and run) a harness that triggers one finding on your own kernel",
        description="Write a harness for one finding: it imports your module, builds the input that triggers "
                    "the finding, runs the kernel as it is and a control (the flagged line fixed in a temporary "
                    "copy, or an input just inside the limit) each in its own process under a watchdog, and "
                    "judges. This runs your project's code; `check` never does.")
    confirm.add_argument("where", nargs="?", metavar="PATH:LINE[:CODE]")
    confirm.add_argument("--from", dest="report", metavar="REPORT",
                         help="take the finding from a JSON or SARIF report (with PATH:LINE, the one at that line; "
                              "else the first finding with a recipe)")
    confirm.add_argument("--dry-run", action="store_true", help="write the harness, do not run it")
    confirm.add_argument("--out", metavar="DIR", default="kernelint-confirm",
                         help="folder for the harness, the runs and the record (default ./kernelint-confirm)")
    confirm.add_argument("--set", dest="settings", action="append", default=[], metavar="NAME=VALUE",
                         help="a value for an entry parameter the source does not fix (eps=1e-6, h0=None), or a "
                              "tensor's shape in the entry's size names (A_log=shape:(H,))")
    confirm.add_argument("--max-configs", type=int, default=None, metavar="N",
                         help="keep only the first N configs of the flagged kernel's @triton.autotune (compiling "
                              "72 configs can take longer than the run)")
    confirm.add_argument("--timeout", type=float, default=120.0, metavar="S", help="watchdog per kernel run")
    confirm.add_argument("--setup-timeout", type=float, default=600.0, metavar="S",
                         help="limit on import and input building per run")
    confirm.add_argument("--interpret", action="store_true", help="run under TRITON_INTERPRET=1 on the CPU")


def _from_report(report: Path, where: str | None) -> tuple[Path, int, str]:
    from kernelint.confirm.recipes import DECLARED

    data = json.loads(report.read_text(encoding="utf-8"))
    found: list[tuple[Path, int, str]] = []
    if isinstance(data, dict) and "runs" in data:  # SARIF
        for run in data["runs"]:
            for result in run.get("results", []):
                location = result["locations"][0]["physicalLocation"]
                uri = location["artifactLocation"]["uri"]
                path = Path(uri[len("file://"):] if uri.startswith("file://") else uri)
                found.append((path, location["region"]["startLine"], result["ruleId"]))
    else:
        found = [(Path(f["path"]), f["line"], f["code"]) for f in data]
    if where:
        match = _WHERE.match(where)
        if match is None:
            raise LocateError(f"{where!r}: expected PATH:LINE[:CODE]")
        found = [f for f in found if f[0].resolve() == Path(match["path"]).resolve() and f[1] == int(match["line"])
                 and (match["code"] is None or f[2] == match["code"])]
    found = [f for f in found if f[2] in DECLARED]
    if not found:
        raise LocateError(f"no crash or numerics finding in {report}" + (f" at {where}" if where else ""))
    return found[0]


def run(args) -> int:
    from kernelint.exit_codes import EXIT_ERROR

    try:
        if args.report:
            path, line, code = _from_report(Path(args.report), args.where)
        else:
            match = _WHERE.match(args.where or "")
            if match is None:
                print("kernelint confirm: give PATH:LINE[:CODE] or --from REPORT", file=sys.stderr)
                return EXIT_ERROR
            path, line, code = Path(match["path"]), int(match["line"]), match["code"]
        target = locate(path.resolve(), line, code)
        apply_settings(target, args.settings)
    except (LocateError, ValueError, OSError, SyntaxError) as error:
        print(f"kernelint confirm: {error}", file=sys.stderr)
        return EXIT_ERROR
    harness = generate(target, max_configs=args.max_configs)
    out = Path(args.out) / f"{target.code}-{target.path.stem}-{target.line}"
    out.mkdir(parents=True, exist_ok=True)
    script = out / "harness.py"
    script.write_text(harness.source, encoding="utf-8")
    print(f"harness: {script}")
    if harness.recipe is None:
        print(f"cannot build input: {harness.problems[0]}")
        return 1
    if harness.assumptions:
        print("assumed: " + "; ".join(harness.assumptions))
    if harness.problems:
        print("cannot build input: " + "; ".join(harness.problems))
        return 1
    if args.dry_run:
        print(f"dry run: recipe {harness.recipe}, about {harness.estimated_bytes / 2**30:.2f} GiB; not run")
        return 0
    import importlib.util

    missing = [name for name in ("torch", "triton") if importlib.util.find_spec(name) is None]
    if missing:
        print(f"cannot run: {' and '.join(missing)} not installed in this Python; the harness is written "
              "(--dry-run writes it without trying)")
        return EXIT_ERROR
    from kernelint.confirm.run import confirm

    spec = _spec_of(script)
    record = confirm(script.resolve(), spec, out.resolve() / "runs", args.timeout, args.setup_timeout, args.interpret)
    for variant, result in record["runs"].items():
        print(f"  {variant}: {result['outcome']} ({result.get('wall_s')} s)")
    print(f"{record['verdict']}: {record.get('why', '')}")
    print(f"record: {out / 'runs' / 'verdict.json'}")
    return 0 if record["verdict"] == "confirmed" else 1


def _spec_of(script: Path) -> dict:
    """The harness's SPEC, read back with ``ast`` (the harness is not imported here)."""
    import ast

    tree = ast.parse(script.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SPEC" for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"{script}: no SPEC")
