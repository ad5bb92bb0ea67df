"""KL131 triton-api-not-in-target: a Triton API the targeted release no longer has (or does not
have yet), or has deprecated."""
from __future__ import annotations

import ast

from kernelint.edits import remove_keyword, replace
from kernelint.findings import Fix, Severity
from kernelint.grouping import project_cause
from kernelint.model.api_versions import api_uses, describe, rename_fix
from kernelint.model.dsl import triton
from kernelint.rules import Report, Rule

#: ``allow_tf32=`` literal -> the ``input_precision=`` that means the same (the docstring: "If true,
#: input_precision is set to 'tf32'"; false selects full fp32, "ieee").
_PRECISION_OF_ALLOW_TF32 = {True: "tf32", False: "ieee"}


def fix_for(use, ctx) -> Fix | None:
    """The rewrite when it is a pure rename or a literal keyword translation."""
    node = use.node
    if use.api == triton.DOT + "(allow_tf32=)" and isinstance(node, ast.keyword):
        value = node.value
        if isinstance(value, ast.Constant) and value.value in _PRECISION_OF_ALLOW_TF32:
            return Fix(f'Use input_precision="{_PRECISION_OF_ALLOW_TF32[value.value]}"',
                       (replace(node, f'input_precision="{_PRECISION_OF_ALLOW_TF32[value.value]}"'),), safe=True)
        return None
    if use.api == triton.DO_BENCH + "(fast_flush=)" and isinstance(node, ast.keyword):
        call = next((c for c in ctx.nodes(ast.Call) if node in c.keywords), None)
        edit = remove_keyword(call, node, ctx.source.splitlines()) if call is not None else None
        return Fix("Drop fast_flush= (flushing is always fast since Triton 3.2)", (edit,), safe=True) if edit else None
    return rename_fix(use, "triton")


class TritonApiNotInTarget(Rule):
    code = "KL131"
    name = "triton-api-not-in-target"
    family = "triton-versions"
    dsl = "triton"
    severity = Severity.ERROR
    other_severities = (Severity.WARNING,)
    # On: the pair reproduced on the H200 (3.6.0) and under TRITON_INTERPRET (3.9.0), its other side
    # under 3.3.1; over the corpus 27 of 27 findings were true or latent (docs/precision.md).
    evidence_class = "compile"
    summary = ("A Triton API the targeted release removed, does not have yet, or deprecated: "
               "the code fails to import or compile there.")
    wants_finish = True
    doc = """
## What it does
Reads which Triton release the code targets (`--triton-version`, `triton-version` in
`[tool.kernelint]`, else what the project pins in `pyproject.toml`, `setup.py`, `setup.cfg`,
`requirements*.txt` or `environment.yml`, else the installed Triton, else the newest release
kernelint knows; `kernelint check --show-settings FILE` shows the choice) and reports every use of
an API that release does not have or has deprecated, from the version table in
`kernelint/model/dsl/triton.py`:

| API | what happened | release |
| --- | --- | --- |
| `tl._experimental_descriptor_load` / `_store`, `tl._experimental_reinterpret_tensor_descriptor` | removed | 3.4.0 |
| `triton.tools.experimental_descriptor` (`create_1d_tma_descriptor`, `create_2d_tma_descriptor`, `TmaDescKernelParam`) | added 3.2.0, removed (renamed `triton.tools.tensor_descriptor`) | 3.4.0 |
| `tl.extra.cuda.experimental_device_tensormap_create1d/2d`, `experimental_tensormap_fenceproxy_acquire` | removed | 3.4.0 |
| `tl._experimental_make_tensor_descriptor` | added 3.3.0, renamed `tl.make_tensor_descriptor` | 3.4.0 |
| `tl.make_tensor_descriptor`, `tl.load_tensor_descriptor`, `tl.store_tensor_descriptor`, `triton.tools.tensor_descriptor` | added | 3.4.0 |
| `triton.set_allocator` | added | 3.3.0 |
| `tl.make_block_ptr` | deprecated 3.7.0, removed (raises `NotImplementedError`) | 3.9.0 |
| `tl.advance` | removed | 3.9.0 |
| `tl.dot(allow_tf32=)` | deprecated (use `input_precision=`) | 3.0.0 |
| `triton.testing.do_bench(fast_flush=)` | removed | 3.2.0 |
| `triton.autotune(warmup=, rep=, use_cuda_graph=)` | deprecated (use `do_bench=`) | 3.2.0 |

A removed API, or one that ships only in a later release, is an `error`; a deprecated one a
`warning`. Each message names the release it assumed and where that came from. Uses of one API
under one target release are one finding in `kernelint check`, across the project's files, the
other uses its related sites (flake8 and pylint, which see one file, give one per file).

It stays silent on code written for several releases: a use inside a `try` that catches
`ImportError`, `AttributeError` (or `Exception`), under an `if` that tests a version or probes
for the API (`hasattr`, `triton.__version__`, `HAS_TMA`), or after such a probe in an `or`; on
names in type annotations; and on code for a vendor's Triton fork (a file that imports
`torch_npu`/`torch_mlu`, or lives in a vendor backend folder such as FlagGems'
`runtime/backend/_ascend` or fla's `backends/triton_ascend`), whose releases are not upstream's.

On by default. The pair (the 3.3 spelling `tl._experimental_make_tensor_descriptor` against
`tl.make_tensor_descriptor`) fails to compile on the H200 with Triton 3.6.0 and on the CPU with
3.9.0, and runs the other way round with 3.3.1, where the good kernel fails instead (*Evidence*).
Over the corpus, with each repository's pins, it reported 27 findings, all true or latent (one
file of FlagGems uses block pointers with no pin, so on the installed 3.9.0; 26 files use the
deprecated `allow_tf32=`).

## Why is this bad?
Triton changes its Python API between minor releases. Code that used the experimental TMA API
stops importing on 3.4 (`ImportError: cannot import name 'create_2d_tma_descriptor'`) or compiling
(`AttributeError: module 'triton.language' has no attribute '_experimental_descriptor_load'`);
block-pointer kernels stop compiling on 3.9; a `do_bench(fast_flush=True)` benchmark raises
`TypeError` from 3.2. The failure appears when the dependency is upgraded, far from the code.

## Example
```python
# requirements.txt: triton==3.4.0
desc = tl._experimental_make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
acc = tl.dot(a, b, allow_tf32=False)
```

## Use instead
```python
desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
acc = tl.dot(a, b, input_precision="ieee")
```
Fixes are offered for the pure renames and literal keywords: `_experimental_make_tensor_descriptor`
-> `make_tensor_descriptor`, `allow_tf32=True/False` -> `input_precision="tf32"/"ieee"`, dropping
`fast_flush=`.
"""
    references = """
- triton-lang/triton PR #6488 ('[BC-Breaking] Kill experimental descriptor APIs', in 3.4.0) and
  issue #8547 (no replacement for `create_2d_tma_descriptor`); PR #3739 (the experimental API).
- triton PR #9667 (make_block_ptr deprecation warning, 3.7.0) and PR #10833 (block pointers
  removed, 3.9.0); sglang PR #39381 and ROCm/ATOM PR #2003 (the fallout).
- triton PR #3234 and #3498 (`input_precision`, `allow_tf32` deprecated); PR #4485 and
  FlashMLA PR #12 (`fast_flush` removed in 3.2.0).
- Every version in the table was read from the PyPI wheels' sources (3.0.0 to 3.9.0).
"""

    def finish(self, ctx):
        for use in api_uses(ctx, "triton"):
            failure = "NotImplementedError: Block pointers have been removed" if use.api == triton.MAKE_BLOCK_PTR \
                else None
            message, deprecated = describe(use, ctx, "triton", failure)
            yield Report(use.node, message, severity=Severity.WARNING if deprecated else Severity.ERROR,
                         # One cause per API and target release, in every file of the project.
                         cause=project_cause(f"target {ctx.target('triton').describe()}", use.api),
                         fix=fix_for(use, ctx))
