"""KL122 hardcoded-store-cast: a dtype-generic Triton kernel stores a value cast to a literal
half/fp8 type: other output dtypes get fp16's range and precision."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.triton import memory
from kernelint.model.core.calls import argument, signature_argument
from kernelint.model.dsl import triton
from kernelint.model.triton.dtypes import conversion_target, triton_dtype
from kernelint.model.project.host import parameter_dtypes
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree

_MAX_DEPTH = 8


def final_conversion(ctx, value: ast.expr) -> ast.Call | None:
    """The conversion ``value`` is the result of (``acc.to(tl.float16)``), through names with a
    single assignment; None when the last operation is not a conversion."""
    for _ in range(_MAX_DEPTH):
        if isinstance(value, ast.Call) and conversion_target(ctx, value) is not None:
            return value
        if not isinstance(value, ast.Name):
            return None
        definitions = ctx.definitions(value.id, value)
        if len(definitions) != 1 or definitions[0].kind != "assign" or definitions[0].value is None:
            return None
        value = definitions[0].value
    return None


def _generic_evidence(ctx, kernel) -> str | None:
    """How ``kernel`` shows it serves several dtypes: a conversion to a pointer's own element
    type (``out_ptr.dtype.element_ty``) or to a dtype constexpr (``.to(DTYPE)``)."""
    constexprs = kernel.constexpr_names(ctx.qualname)
    for node in subtree(kernel.node):
        if (isinstance(node, ast.Attribute) and node.attr == "element_ty"
                and isinstance(node.value, ast.Attribute) and node.value.attr == "dtype"):
            return f"`{short(node)}`"
        if isinstance(node, ast.Call):
            target = conversion_target(ctx, node)
            if target is None:
                target = argument(node, "dtype")
            if isinstance(target, ast.Name) and target.id in constexprs:
                return f"the dtype constexpr `{target.id}`"
    return None


def _specialized(ctx, kernel, node: ast.AST) -> bool:
    """``node`` sits under an ``if`` on a constexpr or on a dtype: a branch chosen per dtype."""
    constexprs = kernel.constexpr_names(ctx.qualname)
    for ancestor in ctx.ancestors(node):
        if ancestor is kernel.node:
            return False
        test = getattr(ancestor, "test", None) if isinstance(ancestor, (ast.If, ast.IfExp)) else None
        if test is None:
            continue
        for name in ast.walk(test):
            if isinstance(name, ast.Name) and name.id in constexprs:
                return True
            if isinstance(name, ast.Attribute) and name.attr in ("dtype", "element_ty"):
                return True
    return False


class HardcodedStoreCast(Rule):
    code = "KL122"
    name = "hardcoded-store-cast"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("A dtype-generic kernel stores a value cast to a literal fp16/bf16/fp8 type: other "
               "output dtypes get that type's range and precision.")
    wants_finish = True
    doc = """
## What it does
Flags `tl.store(ptr, value)` where `value` was last converted to a literal low-precision type
(`acc.to(tl.float16)`, `tl.cast(x, tl.bfloat16)`, fp8), in a kernel that shows it serves several
dtypes: it converts something to a pointer's own element type (`y_ptr.dtype.element_ty`) or to a
dtype constexpr (`.to(DTYPE)`, `dtype=OUT_DTYPE`). It is the store-side sibling of KL101.

It stays silent on kernels with no sign of dtype genericity (a kernel written for fp16 only,
fp8 quantizers), on stores under an `if` on a constexpr or a dtype (one branch per dtype), and
on conversions followed by further arithmetic.

## Why is this bad?
`tl.store` converts the value to the pointer's element type, so nothing crashes: a bf16 or fp32
output receives the fp16 value, converted again. The result has fp16's range and precision:
anything beyond 65504 becomes `inf`, small values lose digits, and an fp32 output carries only
11 significant bits. Kernels that were written for fp16 and later opened to bf16 (the usual
path: a `DTYPE` constexpr is added for the loads, the epilogue's `.to(tl.float16)` stays)
produce overflowed activations for bf16 models whose values are fp16-unsafe, the very reason
those models run in bf16. Code review bots flag the same thing in real kernels (LMCache's
block-sparse attention stored `acc.to(tl.float16)` in a project whose default dtype is bf16).

## Example
```python
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n).to(tl.float32)
    tl.store(y_ptr + offs, (x * 2.0).to(tl.float16), mask=offs < n)
```
(reported when the kernel elsewhere converts to `y_ptr.dtype.element_ty` or a `DTYPE` constexpr)

## Use instead
```python
    tl.store(y_ptr + offs, (x * 2.0).to(y_ptr.dtype.element_ty), mask=offs < n)
```
"""
    references = """
- LMCache/LMCache PR #3092 (review: a hard-coded `acc.to(tl.float16)` store in a bf16 project).
- Triton `language/semantic.py` (`store`): the value is cast to the pointer's element type, so
  the fp16 intermediate is silent.
- Sibling rule KL101 (a literal pointer type on the load side).
"""

    def finish(self, ctx):
        evidence: dict[int, str] = {}
        signature = triton.SIGNATURES[triton.STORE]
        for call in ctx.nodes(ast.Call):
            if ctx.call_name(call) != triton.STORE:
                continue
            kernel = ctx.kernel_of(call, "triton")
            value = signature_argument(call, signature, "value")
            if kernel is None or value is None:
                continue
            conversion = final_conversion(ctx, value)
            if conversion is None:
                continue
            dtype = triton_dtype(ctx, conversion_target(ctx, conversion))
            if dtype not in triton.FLOAT_LOW or _specialized(ctx, kernel, call):
                continue
            if id(kernel.node) not in evidence:
                evidence[id(kernel.node)] = _generic_evidence(ctx, kernel) or ""
            if not evidence[id(kernel.node)]:
                continue
            pointer = signature_argument(call, signature, "pointer")
            parameters = memory.base_parameters(ctx, kernel, pointer) if pointer is not None else ()
            host = [parameter_dtypes(ctx.project, kernel, ctx, p) for p in sorted(parameters)]
            if host and all(h.only({dtype}) for h in host):
                continue  # every launch in the project stores into a tensor of exactly that type
            other = sorted({(name, where) for h in host for name, where in h.known.items() if name != dtype})
            target = ", ".join(f"`{p}`" for p in sorted(parameters)) or "the output"
            trigger = f"; {other[0][0]} at {other[0][1]}" if other else ""
            yield Report(call, f"stores a value cast to `tl.{dtype}` into {target} in a kernel "
                               f"written for several dtypes ({evidence[id(kernel.node)]}{trigger}): other output "
                               f"dtypes get {dtype}'s range and precision; cast to `<ptr>.dtype.element_ty`")
