"""KL132 global-not-constexpr-in-jit: @triton.jit code reads a module global that is not
`tl.constexpr(...)`; the targeted Triton refuses to compile it."""
from __future__ import annotations

import ast

from kernelint.edits import local_name, replace
from kernelint.findings import Fix, Severity
from kernelint.model.api_versions import vendor_fork
from kernelint.model.dsl import triton
from kernelint.model.dsl.versioning import parse_version
from kernelint.model.triton.jit_globals import ANNOTATED, rejected_global_reads
from kernelint.rules import Report, Rule

_BOUNDARY = {
    "plain": next(c for c in triton.API_CHANGES if c.api == triton.NON_CONSTEXPR_GLOBALS_REJECTED),
    ANNOTATED: next(c for c in triton.API_CHANGES if c.api == triton.ANNOTATED_GLOBALS_REJECTED),
}


def _fix(read, ctx) -> Fix | None:
    """``X = 4`` / ``X: tl.constexpr = 4`` -> ``X = tl.constexpr(4)`` (one target, a name)."""
    binding = read.binding
    target = binding.target if isinstance(binding, ast.AnnAssign) else (
        binding.targets[0] if len(binding.targets) == 1 else None)
    spelling = local_name(ctx.tree, triton.CONSTEXPR)
    if not isinstance(target, ast.Name) or spelling is None:
        return None
    value = ctx.source_segment(binding.value) or ast.unparse(binding.value)
    text = f"{target.id} = {spelling}({value})"
    host_reads = [n for n in ctx.nodes(ast.Name) if n.id == target.id and isinstance(n.ctx, ast.Load)
                  and ctx.kernel_of(n, "triton") is None]
    # Host code that reads the global then gets a tl.constexpr: unsafe until someone checks it.
    return Fix(f"Make {target.id} a tl.constexpr", (replace(binding, text),), safe=not host_reads)


class GlobalNotConstexprInJit(Rule):
    code = "KL132"
    name = "global-not-constexpr-in-jit"
    family = "triton-versions"
    dsl = "triton"
    severity = Severity.ERROR
    default_enabled = False
    evidence_class = "compile"
    summary = ("@triton.jit code reads a module global that is not `tl.constexpr(...)`: Triton 3.0+ "
               "(3.3+ for `X: tl.constexpr = v`) refuses to compile the kernel.")
    wants_finish = True
    doc = """
## What it does
Reports a module global read in the body of a `@triton.jit` function when every binding of it in
the module is a plain literal assignment (`UNROLL = 4`, `MODE = "fast"`, `EPS = 1e-6`), or the
annotated form `UNROLL: tl.constexpr = 4`, and the targeted Triton rejects that form: plain globals
from Triton 3.0.0, annotated ones from 3.3.0 (the release comes from `--triton-version`,
`triton-version` in `[tool.kernelint]`, the project's pins, the installed Triton, or the newest
kernelint knows; the message names the one it used). One finding per global, at its first read.

It stays silent on `X = tl.constexpr(4)`, on globals whose value it cannot see (imports, calls,
attributes such as `DTYPE = tl.float16`, functions), on reads in a parameter's default value
(`BLOCK: tl.constexpr = DEFAULT_BLOCK`, which Triton allows), when the file mentions
`TRITON_ALLOW_NON_CONSTEXPR_GLOBALS`, and when the target predates the change.

## Why is this bad?
Triton would bake the global's value into the compiled kernel and never notice a change, so since
3.0 it refuses: `NameError: Cannot access global variable UNROLL from within @jit'ed function.
Triton kernels can only access global variables that are instanstiated as constexpr`. From 3.3 the
annotation `X: tl.constexpr = 42` no longer counts either (triton PR #5961), which broke code that
had followed the 3.0 error message's own advice.

## Example
```python
UNROLL = 4
ROPE_GROUP_SIZE: tl.constexpr = 4

@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK * UNROLL + tl.arange(0, BLOCK)
```

## Use instead
```python
UNROLL = tl.constexpr(4)
ROPE_GROUP_SIZE = tl.constexpr(4)
```
The fix rewrites the assignment that way.

Off by default, from the evidence and the corpus. The pair (a plain `UNROLL = 4` against
`tl.constexpr(4)`) fails to compile on the H200 with Triton 3.6.0 (`NameError: Cannot access global
variable UNROLL`); compiled on the CPU, the plain form fails on 3.2.0, 3.3.1, 3.8.0 and 3.9.0 and
passes 2.3.1's front end, and the annotated form compiles on 3.2.0 and fails on 3.3.1 and 3.9.0
(*Evidence*, other releases). Over the corpus it finds nothing once vendor-fork folders are left
out (three findings in FlagGems' `_ascend` and `_metax` backends were such code), so its precision
on real code is not measured yet.
"""
    references = """
- FlagGems PR #118 and fms-acceleration issue #56 (Triton 3.0 rejects non-constexpr globals);
  triton PR #5961, tritonbench PR #245, fms-acceleration PR #148, MSLK PR #430 (3.3 rejects the
  annotated form).
- The check reproduces `global_lookup` in `triton/compiler/code_generator.py` of the 3.0.0 to 3.9.0
  wheels; 2.3.1 has no such check, 3.2.0 still reads `__annotations__`, 3.3.0 does not.
"""

    def finish(self, ctx):
        target = ctx.target("triton")
        if vendor_fork(ctx):
            return  # a vendor's fork has its own releases and rules for globals
        for read in rejected_global_reads(ctx):
            change = _BOUNDARY[read.form]
            if not target.at_least(parse_version(change.version)):
                continue
            users = ", ".join(f"`{name}`" for name in read.functions)
            form = "annotated `tl.constexpr` but not an instance of it" if read.form == ANNOTATED else \
                "not `tl.constexpr(...)`"
            yield Report(
                read.reads[0],
                f"{users} {'reads' if len(read.functions) == 1 else 'read'} module global `{read.name}` "
                f"(line {read.binding.lineno}), {form}: Triton {change.version} and later refuse to compile it "
                f"(NameError: Cannot access global variable {read.name}); this code targets {target.describe()}; "
                f"write `{read.name} = tl.constexpr(...)`",
                fix=_fix(read, ctx),
            )
