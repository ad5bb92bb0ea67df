"""KL139 fp32-dot-default-tf32: ``tl.dot`` of fp32 tiles with no ``input_precision``: TF32 on NVIDIA GPUs."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.core.calls import signature_argument
from kernelint.model.core.dataflow import load_of
from kernelint.model.dsl import triton
from kernelint.model.triton.dtypes import Precision, precision_of
from kernelint.model.project.host import loaded_dtypes
from kernelint.rules import Report, Rule

_FP32 = frozenset({"float32"})


class Fp32DotDefaultTf32(Rule):
    code = "KL139"
    name = "fp32-dot-default-tf32"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.WARNING
    default_enabled = True
    evidence_class = "numerics"
    summary = ("`tl.dot` of tiles loaded from fp32 tensors with no `input_precision`: Triton multiplies them in "
               "TF32 on NVIDIA GPUs, about 1e-3 relative error where fp32 results are expected.")
    node_types = (ast.Call,)
    calls = frozenset({triton.DOT})
    doc = """
## What it does
Flags `tl.dot(a, b)` in a `@triton.jit` function that passes neither `input_precision` nor
`allow_tf32`, when both operands are tiles read with `tl.load` (through names, not converted
since) from tensors every launch the project shows passes as `torch.float32`. The Triton twin of
KL403.

It stays silent where the precision is stated (`input_precision="ieee"`, `"tf32x3"`, `"tf32"`,
`allow_tf32=...`), on fp16/bf16/fp8 operands (and fp32 upcasts of them: TF32 holds their bits
exactly), on operands computed in the kernel (`tl.dot(p, v)` with `p = tl.exp(...)`: whether
TF32 is acceptable there is the kernel author's call), and where the tensors' dtype cannot be
followed.

## Why is this bad?
On NVIDIA GPUs Triton's default for fp32 `tl.dot` inputs is TF32 (`default_dot_input_precision =
"tf32"`, unless `TRITON_F32_DEFAULT` says otherwise): each operand keeps 10 mantissa bits, so a
product over K terms is off by about 1e-3 relative to an fp32 matmul, and torch's own fp32 matmul
(with `allow_tf32` off by default since 1.12) disagrees with the kernel. Users port the fp16
tutorial GEMM to fp32 and find a mismatch they take for a bug (triton #6265, #5895, #8654); an
explicit `input_precision="ieee"` (or `"tf32x3"`, about fp32 accuracy at lower cost) fixes it,
and `input_precision="tf32"` records that TF32 is intended.

Measured on the H200 (Triton 3.6, the record below): an fp32 GEMM with the default precision was
off by up to 0.12 (K = 1024) and 0.27 (K = 4096) against an fp64 reference, 94-97% of the
elements beyond 2e-3; with `input_precision="ieee"` it stayed within 8.9e-4. A warning, not an
error: some fp32 kernels want TF32, and the fix for them is to say so.

## Example
```python
a = tl.load(a_ptrs)   # fp32 tensors
b = tl.load(b_ptrs)
acc += tl.dot(a, b)
```

## Use instead
```python
acc += tl.dot(a, b, input_precision="ieee")   # or "tf32x3"; "tf32" if TF32 is what you want
```
"""
    references = """
- triton-lang/triton #6265 (fp32 tutorial GEMM off by 1e-2 against torch), #5895 and #8654
  (`tl.dot` differs from `tl.sum` and from the interpreter: TF32 by default), #10176 (what
  `input_precision="ieee"` applies to), PR #3290 (`TRITON_F32_DEFAULT`), PR #9080 (a TF32x3
  default tried and reverted).
- GitHub issue 23 item 7; KL403, the cuTile rule for the same gap.
"""

    def check(self, node, ctx):
        if ctx.call_name(node) != triton.DOT or len(node.args) < 2:
            return
        kernel = ctx.kernel_of(node, "triton")
        if kernel is None:
            return
        signature = triton.SIGNATURES[triton.DOT]
        if any(signature_argument(node, signature, name) is not None for name in ("input_precision", "allow_tf32")):
            return
        sources = []
        for operand in node.args[:2]:
            while ctx.is_call(operand, triton.TRANS, triton.PERMUTE) and operand.args:
                operand = operand.args[0]  # tl.trans(k): the same elements
            if precision_of(ctx, operand) is not Precision.LOADED or load_of(ctx, operand) is None:
                return
            host = loaded_dtypes(ctx.project, ctx, kernel, operand)
            if not host.only(_FP32):
                return
            sources.append(host.known["float32"])
        yield Report(node, f"`{short(node)}` multiplies tiles of float32 tensors (made at {sources[0]}) with no "
                           f"`input_precision`: Triton uses TF32 on NVIDIA GPUs, about 1e-3 relative error; pass "
                           f"input_precision=\"ieee\" (or \"tf32x3\"), or \"tf32\" if TF32 is intended")
