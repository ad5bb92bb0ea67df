"""KL319 cute-api-not-in-target: a CuTe DSL API the targeted nvidia-cutlass-dsl release removed,
does not have yet, or deprecated."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.grouping import project_cause
from kernelint.model.api_versions import api_uses, describe, rename_fix
from kernelint.rules import Report, Rule


class CuteApiNotInTarget(Rule):
    code = "KL319"
    name = "cute-api-not-in-target"
    family = "cute-versions"
    dsl = "cute"
    severity = Severity.ERROR
    other_severities = (Severity.WARNING,)
    default_enabled = False
    evidence_class = "compile"
    summary = ("A CuTe DSL API the targeted nvidia-cutlass-dsl release removed, does not have yet, or "
               "deprecated: the kernel fails to trace there.")
    wants_finish = True
    doc = """
## What it does
Reads which nvidia-cutlass-dsl release the code targets (`--cutlass-dsl-version`,
`cutlass-dsl-version` in `[tool.kernelint]`, else the project's pins, else the installed
package, else the newest release kernelint knows; `kernelint check --show-settings FILE` shows it)
and reports every use of an API that release does not have or has deprecated, from the version
table in `kernelint/model/dsl/cute.py`:

| API | what happened | release |
| --- | --- | --- |
| `cute.make_rmem_tensor`, `cute.make_rmem_tensor_like` | added | 4.3.0 |
| `cute.make_fragment` | deprecated (use `cute.make_rmem_tensor`) 4.3.0, removed | 4.6.0 |
| `cute.core.ThrMma`, `cute.core.ThrCopy` | deprecated 4.3.0, removed (use `cute.ThrMma` / `cute.ThrCopy`) | 4.6.0 |
| `cutlass.range_dynamic`, `cutlass.dynamic_expr` | deprecated | 4.1.0 |
| `cutlass.utils.<arch>_helpers.SMEM_CAPACITY` | deprecated 4.1.0, removed (use `cutlass.utils.get_smem_capacity_in_bytes`) | 4.3.0 |
| `cutlass.utils.ampere_helpers` | removed | 4.3.0 |

A removed API, or one that ships only later, is an `error`; a deprecated one a `warning`. Each
message names the release it assumed and where that came from. Uses of one API under one
target release are one finding in `kernelint check`, across the project's files, the others its
related sites. Code under a version guard (`try`/`except ImportError`, `hasattr`, a version
test) is left alone.

Off by default, not measured on a GPU. Its pair (`cute.make_fragment` against
`cute.make_rmem_tensor`) was traced and compiled for sm_90 on the CPU with three releases
(`benchmarks/versions/cute_compile_on_cpu.py`; raw lines in
`reference_kernels/evidence/runs/issue22-versions/KL319-cpu-compile.jsonl`): 4.2.1 has no
`make_rmem_tensor` (the good file fails, `AttributeError`), 4.5.0 compiles both and warns
'`make_fragment` is deprecated', 4.8.1 has no `make_fragment` (the bad file fails). Over the corpus,
with each repository's pins, it reported one finding, a fallback after a `getattr` probe, which the
rule now treats as version-guarded.

## Why is this bad?
CuTe DSL 4.x renames and then removes APIs: a kernel that calls `cute.make_fragment` traces on
4.5 with a deprecation warning and fails with `AttributeError` on 4.6; one written against 4.3's
`make_rmem_tensor` fails on a project still pinned to 4.2.

## Example
```python
# pyproject.toml: nvidia-cutlass-dsl==4.6.0
tXrX = cute.make_fragment(tXgX.shape, cutlass.Float32)
```

## Use instead
```python
tXrX = cute.make_rmem_tensor(tXgX.shape, cutlass.Float32)
```
The fix makes the pure renames: `make_fragment` -> `make_rmem_tensor`, `cute.core.ThrMma` ->
`cute.ThrMma`, `cute.core.ThrCopy` -> `cute.ThrCopy`.
"""
    references = """
- CUTLASS `media/docs/pythonDSL/cute_dsl_api/changelog.rst` (4.1.0: range_dynamic, dynamic_expr,
  SMEM_CAPACITY deprecated; 4.3.0: make_rmem_tensor added, SMEM_CAPACITY and ampere_helpers
  removed) and `CHANGELOG.md` 4.6.0 ('Long-deprecated API clean-up': make_fragment, core.ThrMma,
  core.ThrCopy); CUTLASS PR #3285 (make_fragment -> make_rmem_tensor across the examples).
- The deprecations were read from the nvidia-cutlass-dsl 4.2.1, 4.3.0, 4.4.0 and 4.5.0 wheels
  (`@deprecated` on `make_fragment` from 4.3.0).
"""

    def finish(self, ctx):
        for use in api_uses(ctx, "cute"):
            message, deprecated = describe(use, ctx, "cute")
            yield Report(use.node, message, severity=Severity.WARNING if deprecated else Severity.ERROR,
                         # One cause per API and target release, in every file of the project.
                         cause=project_cause(f"target {ctx.target('cute').describe()}", use.api),
                         fix=rename_fix(use, "cute"))
