"""KL125 flat-index-noncontiguous: a caller's multi-dimensional tensor reaches a Triton kernel with
no stride, no `.contiguous()` and no contiguity check: transposed or sliced inputs read the
wrong elements."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.core import dataflow
from kernelint.model.triton import memory
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree

#: Tensor methods whose use on the argument shows the host handles its layout: they copy
#: (``contiguous``), check (``is_contiguous``), read strides (``stride``) or raise on most
#: non-contiguous tensors (``view``).
_LAYOUT_AWARE = frozenset({"contiguous", "is_contiguous", "stride", "view", "as_strided"})


#: Decorators that do not touch the arguments; any other one (``@input_guard``,
#: ``@ensure_contiguous``) may make them contiguous.
_TRANSPARENT_DECORATORS = frozenset({
    "staticmethod", "classmethod", "torch.no_grad", "torch.inference_mode", "torch.enable_grad",
    "torch.compiler.disable", "torch._dynamo.disable", "torch.amp.custom_fwd", "torch.amp.custom_bwd",
    "torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd", "functools.wraps", "functools.cache",
    "functools.lru_cache",
})


def entry_point(ctx, function: ast.AST) -> bool:
    """``function`` is where user tensors enter: the ``forward``/``backward`` of an autograd
    ``Function`` or the ``forward`` of a module, with no decorator that may rewrite its arguments.
    Internal helpers receive what their callers (often guarded) pass, so they are left out."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name not in ("forward", "backward"):
        return False
    if not isinstance(ctx.parent(function), ast.ClassDef):
        return False
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = ctx.qualname(target) or (target.id if isinstance(target, ast.Name) else None)
        if name not in _TRANSPARENT_DECORATORS:
            return False
    return True


def _host_parameter(ctx, name: ast.Name) -> bool:
    """``name`` is a parameter of the host function it is used in, never rebound there."""
    definitions = ctx.definitions(name.id, name)
    return bool(definitions) and all(d.kind == "param" for d in definitions)


def _uses(function: ast.AST, name: str):
    for node in subtree(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            yield node


def _layout_handled(ctx, function: ast.AST, name: str) -> bool:
    """The host function checks, copies or reads the strides of ``name`` somewhere."""
    for use in _uses(function, name):
        parent = ctx.parent(use)
        if isinstance(parent, ast.Attribute) and parent.attr in _LAYOUT_AWARE:
            return True
        if isinstance(parent, ast.Attribute) and parent.attr in ("T", "mT", "mH"):
            return True
    return False


def _multi_dimensional(ctx, function: ast.AST, name: str) -> bool:
    """The host reads a non-leading dimension of ``name`` (``x.shape[1]``, ``x.size(-1)``) or
    unpacks its shape into two or more names: the tensor has at least two dimensions."""
    for use in _uses(function, name):
        parent = ctx.parent(use)
        if not isinstance(parent, ast.Attribute):
            continue
        outer = ctx.parent(parent)
        if parent.attr == "shape" and isinstance(outer, ast.Subscript):
            index = ctx.resolve_int(outer.slice) if not isinstance(outer.slice, ast.Slice) else None
            if index is not None and index != 0:
                return True
        if parent.attr == "shape" and isinstance(outer, ast.Assign) and any(
                isinstance(t, (ast.Tuple, ast.List)) and len(t.elts) >= 2 for t in outer.targets):
            return True
        if parent.attr == "size" and isinstance(outer, ast.Call) and outer.args:
            index = ctx.resolve_int(outer.args[0])
            if index is not None and index != 0:
                return True
    return False


def _reads_vectors(ctx, kernel, parameter: str) -> bool:
    """The kernel reads or writes ``parameter`` at per-lane offsets (not one scalar)."""
    for access in memory.accesses(ctx, kernel):
        if parameter not in access.parameters or ctx.call_name(access.call) not in (triton.LOAD, triton.STORE):
            continue
        signature = triton.SIGNATURES[ctx.call_name(access.call)]
        pointer = signature_argument(access.call, signature, "pointer")
        if pointer is not None and dataflow.is_offset_vector(ctx, pointer):
            return True
    return False


class FlatIndexNoncontiguous(Rule):
    code = "KL125"
    name = "flat-index-noncontiguous"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("A caller's multi-dimensional tensor reaches a Triton kernel without strides, "
               "`.contiguous()` or a contiguity check: transposed or sliced inputs read wrong elements.")
    wants_finish = True
    doc = """
## What it does
Flags a Triton launch in the `forward`/`backward` of an autograd `Function` or a module (where
user tensors enter) that passes one of that method's parameters to a kernel that reads it at
per-lane offsets, when:

- the tensor has two or more dimensions (the host reads `x.shape[1]`, `x.size(-1)` or unpacks
  `M, N = x.shape`), and
- the launching function never reads its strides (`x.stride(0)`), never makes it contiguous
  (`x = x.contiguous()` rebinds it; `x.contiguous()` passed directly counts too), never checks
  `x.is_contiguous()` and never calls `x.view(...)` (which raises on most non-contiguous
  tensors).

So the kernel can only address the tensor as if it were dense and row-major. It stays silent on
tensors the launcher allocates itself, on tensors it rebinds before the launch, on 1D tensors,
on scalar reads, on methods with a decorator that may rewrite the arguments (`@input_guard`,
`@ensure_contiguous`), and on helper functions: their callers may have made the tensor
contiguous already, which a single file cannot show.

## Why is this bad?
A transposed view, a column slice (`qkv[:, :d]`) or a sequence slice of a 3D hidden state has
the same shape as a dense tensor and different strides. A kernel that computes
`row * n_cols + col` reads the wrong elements and returns wrong numbers without an error. The
host code looks right and the tests pass with freshly allocated inputs; the bug appears when a
caller passes a view. `reshape(-1, K)` does not rescue it: for a slice along the sequence axis
it returns a non-contiguous view. Triton's maintainers answer such reports with "call
`.contiguous()` before passing the tensor"; real kernels have been fixed by adding exactly that
or by passing strides.

## Example
```python
def rms_norm(x, weight, eps):
    M, N = x.shape
    y = torch.empty_like(x)
    rms_norm_kernel[(M,)](x, weight, y, N, eps, BLOCK=triton.next_power_of_2(N))
```

## Use instead
```python
def rms_norm(x, weight, eps):
    x = x.contiguous()
    ...
```
or pass `x.stride(0)` and use it in the kernel.
"""
    references = """
- triton-lang/triton #2150 (a transposed input read as dense; the maintainers' answer is to call
  `.contiguous()`).
- pytorch/executorch PR #22192 (review: a flat-indexed cast kernel gave wrong results for a
  transposed view and a row slice; `reshape(-1, K)` kept the view non-contiguous).
- vllm-project/compressed-tensors PR #807 (non-contiguous inputs routed to a stride-aware
  kernel), iree-org/iree-turbine #635 (an implicit contiguity requirement giving garbage).
- The rule catalog also cites pytorch/torchtitan #3771 and NVIDIA/TransformerEngine #2746 (not
  found in the searchable issue corpus).
"""

    def finish(self, ctx):
        reported: set[tuple[int, str]] = set()
        for launch in ctx.launches_of("triton"):
            function = ctx.function_of(launch.node)
            if function is None or not entry_point(ctx, function):
                continue
            for parameter, argument in launch.bound_arguments().items():
                if not isinstance(argument, ast.Name) or not _host_parameter(ctx, argument):
                    continue
                key = (id(function), argument.id)
                if key in reported:
                    continue
                if (_layout_handled(ctx, function, argument.id)
                        or not _multi_dimensional(ctx, function, argument.id)
                        or not _reads_vectors(ctx, launch.kernel, parameter)):
                    continue
                reported.add(key)
                yield Report(argument, f"`{argument.id}` comes from the caller and reaches `{launch.kernel.name}` "
                                       f"(`{parameter}`) with no strides, no `.contiguous()` and no "
                                       "`is_contiguous()` check: a transposed or sliced tensor is read as "
                                       f"dense; call `{argument.id} = {argument.id}.contiguous()` or pass its strides")
