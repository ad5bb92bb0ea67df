"""KL128 descriptor-stride-unaligned: an in-kernel tensor descriptor whose row stride is an input
size passed from the host with no padding or alignment check: TMA needs 16-byte strides."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.core import dataflow
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.project.sizes import runtime_size
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree

#: Moduli that show a host checks or pads a size for 16-byte alignment (8 fp16 or 4 fp32 elements,
#: or the byte count itself).
_ALIGNMENT_MODULI = frozenset({4, 8, 16, 32, 64, 128})


def _stride_parameters(ctx, kernel, call: ast.Call) -> list[tuple[ast.expr, str]]:
    """``(stride, parameter)`` for each stride but the last that is a parameter of ``kernel``."""
    strides = signature_argument(call, triton.SIGNATURES[triton.MAKE_TENSOR_DESCRIPTOR], "strides")
    if not isinstance(strides, (ast.List, ast.Tuple)) or len(strides.elts) < 2:
        return []
    params = {p.arg for p in kernel.params}
    found = []
    for stride in strides.elts[:-1]:
        if isinstance(stride, ast.Name) and stride.id in params and all(
                d.kind == "param" for d in ctx.definitions(stride.id, stride)):
            found.append((stride, stride.id))
    return found


def _rounds_up(ctx, node: ast.AST) -> bool:
    """``x % 8`` or ``triton.cdiv(K, 16) * 16`` / ``(K + 7) // 8 * 8``: an alignment step."""
    if not (isinstance(node, ast.BinOp) and ctx.resolve_int(node.right) in _ALIGNMENT_MODULI):
        return False
    return isinstance(node.op, ast.Mod) or (
        isinstance(node.op, ast.Mult) and isinstance(node.left, (ast.Call, ast.BinOp)))


def _checks_alignment(ctx, function: ast.AST, argument: ast.expr) -> bool:
    """The size passed as a stride is rounded up to an alignment on its way, or the host function
    checks it: modulo an alignment (``assert K % 8 == 0``) or against a list of sizes
    (``assert HEAD_DIM in {64, 128}``)."""
    if dataflow.reaches(ctx, argument, lambda n: _rounds_up(ctx, n)) is not None:
        return True
    names = {n.id for n in ast.walk(argument) if isinstance(n, ast.Name)}
    for node in subtree(function):
        if not isinstance(node, (ast.BinOp, ast.Compare)):
            continue
        if not any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node)):
            continue
        if _rounds_up(ctx, node):
            return True
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.Eq)) for op in node.ops):
            if any(isinstance(c, (ast.Set, ast.List, ast.Tuple, ast.Constant)) for c in node.comparators):
                return True
    return False


class DescriptorStrideUnaligned(Rule):
    code = "KL128"
    name = "descriptor-stride-unaligned"
    family = "triton-launch"
    dsl = "triton"
    # Reproduced on the H200 (wrong tiles, no error): error. Off by default: 5 of 6 corpus
    # reports were true (83%), below the 95% a default-on rule needs.
    severity = Severity.ERROR
    default_enabled = False
    evidence_class = "numerics"
    summary = ("An in-kernel tensor descriptor's row stride is an input size from the host, never "
               "padded or checked: sizes that are not 16-byte multiples give wrong tiles.")
    wants_finish = True
    doc = """
## What it does
Flags an in-kernel `tl.make_tensor_descriptor(base, shape, strides=[K, 1], ...)` when a stride
other than the last is a kernel parameter that a launch in the same file feeds with an input
size (`K = x.shape[1]`, `x.size(-1)`): the tensor is taken to be dense, so its row stride is its
inner size. It stays silent when the launching function takes that size modulo an alignment
(`assert K % 8 == 0`), rounds it up (`triton.cdiv(K, 16) * 16`) or checks it against a list of
sizes (`assert HEAD_DIM in {64, 128}`), when the host passes a real stride (`x.stride(0)`), and
on strides that are literals or computed in the kernel.

## Why is this bad?
TMA requires every stride but the innermost to be a multiple of 16 bytes. A host
`TensorDescriptor` checks that and raises; a descriptor built inside the kernel is not checked
by the Triton versions in use (a check for constant strides and a debug-mode device assert were
proposed in triton PR #10931). With a bf16 `[M, K]` tensor and `K = 511` the row stride is 1022
bytes: the kernel runs and its tiles, and every `tl.dot` on them, are wrong (triton #10927, on
Blackwell; fixed by padding K to 512). The same kernels pass every test whose sizes are model
dimensions (multiples of 64) and fail for the odd sizes real inputs bring. FlagGems' `mm`
failed the same way on vLLM tensors whose strides were not 16-byte multiples (FlagGems #2489).

## Example
```python
K = a.shape[1]
matmul_kernel[grid](a, b, c, M, N, K)       # kernel: tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], ...)
```

## Use instead
```python
K = a.shape[1]
assert (K * a.element_size()) % 16 == 0, "TMA needs 16-byte row strides: pad K"
matmul_kernel[grid](a, b, c, M, N, K)
```
or pad the tensor (`torch.nn.functional.pad` to a multiple of 8 fp16 elements) and pass its
padded stride.
"""
    references = """
- triton-lang/triton #10927 (in-kernel descriptor, bf16 K = 511: wrong `tl.dot` results until K
  was padded), PR #10931 (proposed stride validation for `make_tensor_descriptor`), PR #8670
  (the interpreter checks the byte alignment of descriptor strides).
- flagos-ai/FlagGems #2489 (`mm` on strides that are not 16-byte aligned, from vLLM workloads).
- CUDA driver API, `cuTensorMapEncodeTiled`: `globalStrides` must be multiples of 16 bytes.
"""

    prior_evidence = """
Measured on the H200 (triton 3.6.0, see *Evidence*): the pair first ran as a `crash` pair and the
bad kernel raised nothing but returned wrong tiles (max abs error 166, 4,069 of 4,096 outputs
wrong); triton #10927 also reports wrong results rather than an error, so the pair was moved to
the `numerics` class and re-run: reproduced in both unaligned cases (bf16 `K = 1001`, fp16
`K = 1003`), with the aligned `K = 1024` control correct. Under `TRITON_INTERPRET=1`, triton
3.9.0 rejects the bad descriptor itself (`stride must be 16-byte aligned`, PR #8670), so the CPU
proves nothing here. Error, off by default for precision. Corpus: 6 reports, 5 true (tritonbench's
fp8 attention with `strides=[N_CTX, 1]` 4x, torchao's grouped Hadamard amax `strides=[N, 1]`),
1 false (torchao's fixed 16x16 Hadamard matrix, whose size is set out of the file's sight).
"""

    def finish(self, ctx):
        for call in ctx.nodes(ast.Call):
            if ctx.call_name(call) != triton.MAKE_TENSOR_DESCRIPTOR:
                continue
            kernel = ctx.kernel_of(call, "triton")
            if kernel is None:
                continue
            for stride, parameter in _stride_parameters(ctx, kernel, call):
                source = self._host_size(ctx, kernel, parameter)
                if source is None:
                    continue
                yield Report(call, f"descriptor stride `{stride.id}` is the input size `{short(source)}` passed by "
                                   f"the host, never padded or checked: TMA needs strides that are 16-byte "
                                   f"multiples, so odd sizes give wrong tiles; assert or pad on the host")
                break

    @staticmethod
    def _host_size(ctx, kernel, parameter: str) -> ast.AST | None:
        """The size read a launch of ``kernel`` passes for ``parameter``, where the launching
        function neither checks nor pads sizes; None if any launch does not fit."""
        found = None
        for launch in ctx.launches_of("triton"):
            if launch.kernel is not kernel:
                continue
            argument = launch.bound_arguments().get(parameter)
            function = ctx.function_of(launch.node)
            if argument is None or function is None:
                return None
            if dataflow.reaches(ctx, argument, lambda n: isinstance(n, ast.Attribute) and n.attr == "stride"):
                return None
            size = runtime_size(ctx, argument)
            if size is None or _checks_alignment(ctx, function, argument):
                return None
            found = size
        return found
