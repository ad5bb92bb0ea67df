"""The manifest of a reference pair (``pair.toml``): loading, validation and discovery.

Stdlib only: the parent ``kernelint prove`` process, the child that runs a kernel and the tests all
read manifests, and none of them may need torch or a DSL just to do that.
"""
from __future__ import annotations

import ast
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from kernelint.evidence import MEASURED_CLASSES, record_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CLASSES = MEASURED_CLASSES
PAIR_DSLS = ("triton", "cute", "cutile")
INTERPRET_CLASSES = ("compile", "numerics", "crash")
FILES = ("bad.py", "good.py", "reference.py", "pair.toml")
#: Median bad/good time ratio at or above which a perf claim counts as reproduced; rule-catalog.md
#: ties default-on warnings to the same figure.
DEFAULT_MIN_RATIO = 1.2
#: A perf pair is a fair race (issue 10): at least this many cases, of which at least
#: ``MIN_PERF_CONTROLS`` are controls (a small case, or one where the rule should not bite) and at
#: least ``MIN_PERF_TIMED`` count towards the median ratio.
MIN_PERF_CASES = 4
MIN_PERF_CONTROLS = 1
MIN_PERF_TIMED = 3
#: Units ``work(case)`` may return: FLOP (TFLOP/s column) or bytes (GB/s column).
WORK_UNITS = ("FLOP", "B")

_TOP_KEYS = {"code", "dsl", "evidence_class", "entry", "watchdog_s", "interpret", "requires", "claim",
             "expect", "cases", "min_gpus"}
_EXPECT_KEYS = {"bad_error", "atol", "rtol", "min_ratio"}
_CODE = re.compile(r"^KL\d{3}$")
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_MODULE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class ManifestError(Exception):
    """A pair.toml (or pair folder) that cannot be used; the message names the file and every problem."""


@dataclass(frozen=True)
class Case:
    name: str
    #: The whole ``[[cases]]`` table, passed to ``make_inputs(case, device)`` and ``work(case)``.
    params: dict
    cpu: bool = False
    #: A variant where the rule is not expected to bite: recorded, but not counted in the verdict.
    control: bool = False


@dataclass(frozen=True)
class Pair:
    directory: Path
    code: str
    dsl: str
    evidence_class: str
    entry: str
    watchdog_s: float
    interpret: bool
    requires: tuple[str, ...]
    claim: str
    atol: float
    rtol: float
    bad_error: str | None = None
    min_ratio: float = DEFAULT_MIN_RATIO
    cases: tuple[Case, ...] = field(default_factory=tuple)
    #: GPUs the machine needs (a launch on another GPU's tensors needs two); fewer: skipped.
    min_gpus: int = 1

    @property
    def name(self) -> str:
        """The rule name, from the folder (``KL104_erf_needs_fp32`` -> ``erf-needs-fp32``)."""
        return folder_name_parts(self.directory)[1]

    @property
    def record(self) -> str:
        """Its record's name (``evidence/<record>.json``): the code, or ``<CODE>-<dsl>`` for a
        further pair of the rule in a DSL other than its home one."""
        return record_name(self.code, self.dsl)

    def file(self, variant: str) -> Path:
        return self.directory / f"{variant}.py"

    def case(self, name: str) -> Case:
        for case in self.cases:
            if case.name == name:
                return case
        raise KeyError(f"{self.code}: no case {name!r}")

    def interpret_cases(self) -> tuple[Case, ...]:
        return tuple(case for case in self.cases if case.cpu)


def folder_name_parts(directory: Path) -> tuple[str, str]:
    code, _, rest = directory.name.partition("_")
    return code, rest.replace("_", "-")


def default_root() -> Path:
    """Where the pairs live: ``$KERNELINT_PAIRS_ROOT`` (tests use throwaway pairs) or the bundled ones."""
    override = os.environ.get("KERNELINT_PAIRS_ROOT")
    if override:
        return Path(override)
    try:
        import kernelint.reference_kernels as bundled

        return Path(bundled.__file__).resolve().parent
    except ImportError:  # running from a source tree that is not installed
        return Path(__file__).resolve().parents[2] / "reference_kernels"


def pair_dirs(root: Path) -> list[Path]:
    """Every pair folder (``<dsl>/<CODE>_<name>/pair.toml``), sorted by code. A rule has its pair
    under its home DSL and may have further pairs under other DSLs it reads (KL126: ``triton/``
    and ``cutile/``), each with its own record (``record_name``)."""
    return sorted((p.parent for p in root.glob("*/*/pair.toml")), key=lambda d: (d.name, d.parent.name))


def load_pair(directory: Path) -> Pair:
    """Read and validate ``directory/pair.toml``; raise ``ManifestError`` listing every problem."""
    path = directory / "pair.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ManifestError(f"{path}: cannot read: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"{path}: not valid TOML: {error}") from None
    problems: list[str] = []
    pair = _build(directory, data, problems)
    if problems:
        raise ManifestError(f"{path}:\n  - " + "\n  - ".join(problems))
    return pair


def _build(directory: Path, data: dict, problems: list[str]) -> Pair | None:
    def get(table: dict, key: str, kind, where: str, default=..., required=True):
        if key not in table:
            if required and default is ...:
                problems.append(f"{where}{key}: missing")
            return None if default is ... else default
        value = table[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            problems.append(f"{where}{key}: expected {_kind_name(kind)}, got {type(value).__name__} {value!r}")
            return None if default is ... else default
        return value

    for key in sorted(set(data) - _TOP_KEYS):
        problems.append(f"unknown key {key!r} (known: {', '.join(sorted(_TOP_KEYS))})")
    folder_code, _ = folder_name_parts(directory)

    code = get(data, "code", str, "")
    if code is not None and not _CODE.match(code):
        problems.append(f"code: {code!r} is not of the form KL123")
    elif code is not None and code != folder_code:
        problems.append(f"code: {code!r} but the folder is named for {folder_code!r}")
    dsl = get(data, "dsl", str, "")
    if dsl is not None and dsl not in PAIR_DSLS:
        problems.append(f"dsl: {dsl!r} is not one of {', '.join(PAIR_DSLS)}")
    elif dsl is not None and dsl != directory.parent.name:
        problems.append(f"dsl: {dsl!r} but the pair lives under {directory.parent.name}/")
    evidence_class = get(data, "evidence_class", str, "")
    if evidence_class is not None and evidence_class not in CLASSES:
        problems.append(f"evidence_class: {evidence_class!r} is not one of {', '.join(CLASSES)}")
    entry = get(data, "entry", str, "")
    if entry is not None and not _IDENT.match(entry):
        problems.append(f"entry: {entry!r} is not a Python identifier")
    claim = get(data, "claim", str, "")
    if claim is not None and not claim.strip():
        problems.append("claim: empty; quote the seed's claim")
    watchdog_s = get(data, "watchdog_s", float, "", default=120.0)
    if not (isinstance(watchdog_s, float) and watchdog_s > 0 and math.isfinite(watchdog_s)):
        problems.append(f"watchdog_s: must be a positive number of seconds, got {watchdog_s!r}")
    interpret = get(data, "interpret", bool, "", default=False)
    requires = get(data, "requires", list, "", default=["torch"])
    for module in requires:
        if not isinstance(module, str) or not _MODULE.match(module):
            problems.append(f"requires: {module!r} is not a module name")
    min_gpus = get(data, "min_gpus", int, "", default=1)
    if not (isinstance(min_gpus, int) and min_gpus >= 1):
        problems.append(f"min_gpus: must be an integer >= 1, got {min_gpus!r}")

    expect = get(data, "expect", dict, "", default={})
    for key in sorted(set(expect) - _EXPECT_KEYS):
        problems.append(f"expect.{key}: unknown key (known: {', '.join(sorted(_EXPECT_KEYS))})")
    atol = get(expect, "atol", float, "expect.")
    rtol = get(expect, "rtol", float, "expect.")
    for key, value in (("atol", atol), ("rtol", rtol)):
        if value is not None and not (value >= 0 and math.isfinite(value)):
            problems.append(f"expect.{key}: must be a finite number >= 0, got {value!r}")
    bad_error = get(expect, "bad_error", str, "expect.", required=evidence_class in ("crash", "compile"))
    if bad_error is not None:
        try:
            re.compile(bad_error)
        except re.error as error:
            problems.append(f"expect.bad_error: not a valid regular expression: {error}")
        if evidence_class not in ("crash", "compile"):
            problems.append(f"expect.bad_error: only crash and compile pairs expect an error, not {evidence_class}")
    min_ratio = get(expect, "min_ratio", float, "expect.", default=DEFAULT_MIN_RATIO)
    if "min_ratio" in expect and evidence_class != "perf":
        problems.append("expect.min_ratio: only perf pairs have a time ratio")

    cases = _cases(get(data, "cases", list, ""), problems)
    if evidence_class == "perf" and cases is not None:
        problems += _perf_case_problems(cases)
    if cases is not None and cases and all(case.control for case in cases):
        problems.append("cases: every case is a control; at least one must be where the rule bites")
    if interpret:
        if dsl not in (None, "triton"):
            problems.append("interpret: only Triton pairs run under TRITON_INTERPRET=1")
        if evidence_class not in (None, *INTERPRET_CLASSES):
            problems.append(f"interpret: {evidence_class} pairs cannot run on the CPU")
        if cases is not None and not any(case.cpu and not case.control for case in cases):
            problems.append("interpret: true, but no (non-control) case has cpu = true")
    for name in FILES[:3]:
        if not (directory / name).is_file():
            problems.append(f"{name}: missing from {directory}")
    if problems:
        return None
    return Pair(
        directory=directory, code=code, dsl=dsl, evidence_class=evidence_class, entry=entry,
        watchdog_s=watchdog_s, interpret=interpret, requires=tuple(requires), claim=claim.strip(),
        atol=atol, rtol=rtol, bad_error=bad_error, min_ratio=min_ratio, cases=tuple(cases), min_gpus=min_gpus,
    )


def _perf_case_problems(cases: list[Case]) -> list[str]:
    """What keeps a perf pair from being a fair race: too few shapes, no control to compare with,
    too few timed cases for a median."""
    controls = sum(case.control for case in cases)
    timed = len(cases) - controls
    problems = []
    if len(cases) < MIN_PERF_CASES:
        problems.append(f"cases: a perf pair needs at least {MIN_PERF_CASES} cases, has {len(cases)}")
    if controls < MIN_PERF_CONTROLS:
        problems.append("cases: a perf pair needs a small control case (`control = true`), has none")
    if timed < MIN_PERF_TIMED:
        problems.append(f"cases: a perf pair needs at least {MIN_PERF_TIMED} timed (non-control) cases, has {timed}")
    return problems


def _cases(tables: list | None, problems: list[str]) -> list[Case] | None:
    if tables is None:
        return None
    if not tables:
        problems.append("cases: at least one [[cases]] table is needed")
    cases, seen = [], set()
    for index, table in enumerate(tables):
        where = f"cases[{index}]"
        if not isinstance(table, dict):
            problems.append(f"{where}: expected a [[cases]] table")
            continue
        name = table.get("name")
        if not isinstance(name, str) or not name:
            problems.append(f"{where}.name: missing or not a string")
            continue
        if name in seen:
            problems.append(f"{where}.name: duplicate case name {name!r}")
        seen.add(name)
        flags = {}
        for flag in ("cpu", "control"):
            value = table.get(flag, False)
            if not isinstance(value, bool):
                problems.append(f"{where}.{flag}: expected true or false, got {value!r}")
            flags[flag] = value is True
        cases.append(Case(name=name, params=dict(table), **flags))
    return cases


def _kind_name(kind) -> str:
    return {str: "a string", float: "a number", int: "an integer", bool: "true or false",
            list: "an array", dict: "a table"}[kind]


def module_functions(path: Path) -> set[str]:
    """Names of the functions a module defines at top level, read with ``ast`` (never imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def file_problems(pair: Pair) -> list[str]:
    """What the kernel files lack for ``kernelint prove`` to run them: entry points and reference hooks."""
    problems = []
    for variant in ("bad", "good"):
        try:
            if pair.entry not in module_functions(pair.file(variant)):
                problems.append(f"{variant}.py: defines no top-level function {pair.entry!r} (the manifest's entry)")
        except SyntaxError as error:
            problems.append(f"{variant}.py: does not parse: {error}")
    needed = ("make_inputs", "reference", "work") if pair.evidence_class == "perf" else ("make_inputs", "reference")
    try:
        defined = module_functions(pair.directory / "reference.py")
        problems += [f"reference.py: defines no top-level function {name!r}" for name in needed if name not in defined]
        if pair.evidence_class == "perf" and "work" in defined:
            problems += work_problems(pair.directory / "reference.py")
    except SyntaxError as error:
        problems.append(f"reference.py: does not parse: {error}")
    return problems


def work_problems(path: Path) -> list[str]:
    """``work(case)`` must give every case a throughput figure: each of its ``return`` statements
    a literal ``(amount, "FLOP" | "B")`` or ``(amount, unit, peak)`` tuple with a peak the roofline
    knows (read with ``ast``; a return that computes the tuple some other way is refused, since
    its unit cannot be checked before the GPU run)."""
    from kernelint.prove.roofline import PEAK_LABELS

    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    work = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "work")
    returns = [node for node in ast.walk(work) if isinstance(node, ast.Return)]
    if not returns:
        return ["reference.py: work() returns nothing; return (amount, \"FLOP\") or (amount, \"B\")"]
    problems = []
    for node in returns:
        value = node.value
        where = f"reference.py:{node.lineno}: work()"
        if not (isinstance(value, ast.Tuple) and len(value.elts) in (2, 3)):
            problems.append(f"{where} must return a literal (amount, unit) or (amount, unit, peak) tuple")
            continue
        unit = value.elts[1]
        if not (isinstance(unit, ast.Constant) and unit.value in WORK_UNITS):
            problems.append(f"{where} unit must be one of {', '.join(map(repr, WORK_UNITS))}, got {ast.unparse(unit)}")
        if len(value.elts) == 3:
            peak = value.elts[2]
            if not (isinstance(peak, ast.Constant) and peak.value in PEAK_LABELS):
                problems.append(f"{where} peak must be one of {', '.join(map(repr, PEAK_LABELS))}, "
                                f"got {ast.unparse(peak)}")
    return problems
