"""Create everything a new rule needs, as stubs that fail the suite until they are filled in:
``python -m kernelint.scaffold KL123 rule-name --evidence-class numerics``.

Writes the rule module (``checkers/<dsl>/<name>.py``), a fixture it must report and one it must
stay silent on (``tests/fixtures/<dsl>/``), and the reference pair folder with its manifest
(``reference_kernels/<dsl>/<CODE>_<name>/``). The DSL follows from the code's hundred
(docs/adding-a-rule.md). Refuses to overwrite anything.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from kernelint.evidence import DSL_OF_HUNDRED, MEASURED_CLASSES
_IMPORTS = {
    "triton": "import torch\nimport triton\nimport triton.language as tl\n",
    "cute": "import torch\nimport cutlass\nimport cutlass.cute as cute\n",
    "cutile": "import torch\nimport cuda.tile as ct\n",
}
_REQUIRES = {"triton": '["torch", "triton"]', "cute": '["torch", "cutlass"]', "cutile": '["torch", "cuda.tile"]'}

_RULE = '''"""{code} {name}: TODO one-line summary."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.rules import Report, Rule


class {cls}(Rule):
    code = "{code}"
    name = "{name}"
    family = "{dsl}-TODO"
    dsl = "{dsl}"
    # Start quiet; the evidence policy (rule-catalog.md) decides severity and default once the
    # pair is measured with `kernelint prove {code}`.
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "{evidence}"
    summary = "TODO: one sentence, what is wrong and what it costs."
    node_types = (ast.Call,)
    doc = """
## What it does
TODO: what the rule looks for, and the correct code it stays silent on.

## Why is this bad?
TODO: what goes wrong at run time, in your own words.

## Example
```python
TODO
```

## Use instead
```python
TODO
```
"""
    references = """
- TODO: the seed section or issue threads the rule comes from.
"""

    def check(self, node, ctx):
        if ctx.kernel_of(node, "{dsl}") is None:
            return
        return
        yield Report(node, "TODO")
'''

_FIXTURE_BAD = '''{imports}

# TODO: realistic code the rule must report; mark each reported line.
x = 1  # todo-expect: {code}
'''
_FIXTURE_OK = '''{imports}

# TODO: realistic correct code the rule must stay silent on (several forms).
x = 1  # ok: {code}
'''
_PAIR = '''code = "{code}"
dsl = "{dsl}"
evidence_class = "{evidence}"
entry = "run"
watchdog_s = 120
requires = {requires}
claim = "TODO: the claimed effect, quoted from the catalog or seed."

[expect]
{expect}

[[cases]]
name = "TODO"
n = 1048576
{more_cases}'''
_EXPECT = {
    "crash": 'bad_error = "TODO regex of the failure"\natol = 1e-5\nrtol = 1e-5',
    "compile": 'bad_error = "TODO regex of the compile error"\natol = 1e-5\nrtol = 1e-5',
    "hang": "atol = 1e-5\nrtol = 1e-5",
    "numerics": "atol = 1e-5\nrtol = 1e-5",
    "perf": "atol = 1e-2\nrtol = 1e-2\nmin_ratio = 1.2",
}
#: A perf pair is a fair race (issue 10; checked by the manifest loader): a small control and
#: at least three timed shapes.
_PERF_CASES = """
[[cases]]
name = "TODO-shape-2"
n = 4194304

[[cases]]
name = "TODO-shape-3"
n = 16777216

[[cases]]
name = "TODO-small-control"
n = 4096
control = true                    # too small to time, or a shape where the rule should not bite
"""
_KERNEL = '''"""TODO: what this {side} kernel does{why}."""
{imports}

def run(x):
    raise NotImplementedError("TODO")
'''
_REFERENCE = '''import torch


def make_inputs(case, device):
    gen = torch.Generator(device="cpu").manual_seed(0)
    return {"x": torch.randn(case["n"], generator=gen).to(device)}


def reference(x):
    raise NotImplementedError("TODO")
'''
_WORK = '''

def work(case):
    """The work of one call, for the TFLOP/s or GB/s next to each time: (amount, "FLOP") or
    (amount, "B"), optionally with the peak that bounds it (roofline.py)."""
    raise NotImplementedError("TODO")
'''


_PAIR_CONFIG = '''# This pair's rule, on here even where it is off by default, so that `kernelint check
# reference_kernels` reports every `# expect:` line of bad.py and nothing in good.py.
extend-select = ["{code}"]
'''


def files_for(code: str, name: str, evidence: str, root: Path) -> dict[Path, str]:
    dsl = DSL_OF_HUNDRED[code[2]]
    module = name.replace("-", "_")
    cls = "".join(part.capitalize() for part in name.split("-"))
    pair = root / "reference_kernels" / dsl / f"{code}_{module}"
    imports = _IMPORTS[dsl]
    fields = dict(code=code, name=name, dsl=dsl, cls=cls, evidence=evidence, imports=imports,
                  requires=_REQUIRES[dsl], expect=_EXPECT[evidence],
                  more_cases=_PERF_CASES if evidence == "perf" else "")
    return {
        root / "checkers" / dsl / f"{module}.py": _RULE.format(**fields),
        root / "tests" / "fixtures" / dsl / f"{code}_reported.py": _FIXTURE_BAD.format(**fields),
        root / "tests" / "fixtures" / dsl / f"{code}_silent.py": _FIXTURE_OK.format(**fields),
        pair / "pair.toml": _PAIR.format(**fields),
        pair / "kernelint.toml": _PAIR_CONFIG.format(**fields),
        pair / "bad.py": _KERNEL.format(side="bad", why=f" (the line with the construct carries `# expect: {code}`)", imports=imports),
        pair / "good.py": _KERNEL.format(side="good", why="", imports=imports),
        pair / "reference.py": _REFERENCE + (_WORK if evidence == "perf" else ""),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernelint.scaffold", description=__doc__.split("\n\n")[0])
    parser.add_argument("code", help="KL1xx/KL2xx Triton, KL3xx CuTe DSL, KL4xx cuTile")
    parser.add_argument("name", help="kebab-case name, as in rule-catalog.md")
    parser.add_argument("--evidence-class", required=True, choices=MEASURED_CLASSES)
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the kernelint checkout (default: .)")
    args = parser.parse_args(argv)
    if not re.fullmatch(r"KL[1-4]\d\d", args.code):
        parser.error(f"{args.code!r}: a rule code is KL followed by 1-4 (the DSL) and two digits")
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", args.name):
        parser.error(f"{args.name!r}: a rule name is kebab-case")
    if not (args.root / "checkers").is_dir():
        parser.error(f"{args.root}: not a kernelint checkout (no checkers/)")
    files = files_for(args.code, args.name, args.evidence_class, args.root)
    existing = [str(p) for p in files if p.exists()]
    if existing:
        print("kernelint: error: would overwrite " + ", ".join(existing), file=sys.stderr)
        return 2
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"created {path.relative_to(args.root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
