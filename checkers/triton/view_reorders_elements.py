"""KL127 view-reorders-elements: `tl.view` / `tl.reshape(..., can_reorder=True)` whose result is
stored or multiplied: the compiler may permute the elements."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.core import dataflow
from kernelint.model.core.calls import argument, signature_argument
from kernelint.model.dsl import triton
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree


def _is_random(ctx, node: ast.AST) -> bool:
    """A random-number generator call (``tl.rand``, ``tl.randint4x``, a libdevice ``philox``)."""
    name = ctx.call_name(node) if isinstance(node, ast.Call) else None
    return name is not None and (name in triton.RANDOM or (
        name.startswith(triton.TL + "extra.") and name.rsplit(".", 1)[1] == "philox"))


def _reshapes(ctx, node: ast.AST) -> bool:
    """A view or reshape call, whatever its flag (a cheap first filter)."""
    if not isinstance(node, ast.Call):
        return False
    name = ctx.call_name(node)
    if name in (triton.VIEW, triton.RESHAPE):
        return True
    return name is None and isinstance(node.func, ast.Attribute) and node.func.attr in ("view", "reshape")


def reorders(ctx, node: ast.AST) -> bool:
    """``tl.view(x, ...)``, ``x.view(...)``, or a reshape with a true ``can_reorder``, of a value
    whose order matters (random numbers are as good in any order)."""
    if not isinstance(node, ast.Call):
        return False
    name = ctx.call_name(node)
    method = node.func.attr if name is None and isinstance(node.func, ast.Attribute) else None
    if name in (triton.VIEW, triton.RESHAPE):
        source = node.args[0] if node.args else argument(node, "input")
    elif method in ("view", "reshape"):
        source = node.func.value
    else:
        return False
    if name != triton.VIEW and method != "view":
        flag = argument(node, "can_reorder")
        if not (isinstance(flag, ast.Constant) and flag.value is True):
            return False
    if source is None:
        return True
    sources = [source, *_item_assignments(ctx, source)]
    return all(dataflow.reaches(ctx, s, lambda n: _is_random(ctx, n)) is None for s in sources)


def _item_assignments(ctx, name: ast.expr) -> list[ast.expr]:
    """Values written into ``name`` element-wise (``res[0, :], res[1, :] = f(...)``) in its
    function: they are part of what ``name`` holds."""
    if not isinstance(name, ast.Name):
        return []
    function = ctx.function_of(name)
    values = []
    for statement in subtree(function) if function is not None else ():
        if isinstance(statement, ast.Assign):
            targets = [t for target in statement.targets
                       for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
            if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name.id
                   for t in targets):
                values.append(statement.value)
    return values


def _consumed_values(ctx, call: ast.Call) -> tuple[str, list[ast.expr]] | None:
    """What a store writes and what a dot multiplies."""
    name = ctx.call_name(call)
    if name == triton.STORE:
        value = signature_argument(call, triton.SIGNATURES[name], "value")
        return "is stored by `tl.store`", [value] if value is not None else []
    if name == triton.DOT:
        signature = triton.SIGNATURES[name]
        operands = [signature_argument(call, signature, p) for p in ("input", "other")]
        return "is an operand of `tl.dot`", [o for o in operands if o is not None]
    return None


class ViewReordersElements(Rule):
    code = "KL127"
    name = "view-reorders-elements"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("`tl.view` (a reshape that may reorder elements) feeds a store or a `tl.dot`: "
               "elements land in the wrong places.")
    wants_finish = True
    doc = """
## What it does
Flags `tl.view(x, shape)`, `x.view(shape)` and `tl.reshape(x, shape, can_reorder=True)` in a
Triton kernel when the result reaches, through any chain of assignments and element-wise
arithmetic, the value of a `tl.store` or an operand of `tl.dot`.

It stays silent when the reshaped value only feeds a reduction (`tl.sum`, `tl.max`, ...: the
one use Triton's developers call legitimate, since the order of the reduced elements does not
matter), when `can_reorder` is absent, false or not a literal, and on `tl.reshape` without it.

## Why is this bad?
`tl.view` is not PyTorch's `view`: Triton documents that it returns the same elements in an
order that "may not be preserved", and it is `reshape(..., can_reorder=True)` under another
name. The compiler uses that freedom to keep each thread's registers where they are, so a tile
in a tensor-core layout (a `tl.dot` result) flattened with `tl.view` comes out permuted, while a
tile loaded in a plain layout usually does not. Users met it as silent wrong results that
appeared only in larger kernels and moved when unrelated code changed: a `[32, 1]` to `[32]`
view that broke large models in TorchInductor while nearly every unit test passed, a
3D-to-2D view before `tl.dot` that returned NaN, a view before `broadcast_to` that broadcast
along the wrong axis. `tl.view` is deprecated (with a warning) and Triton's maintainers advise
not to use `can_reorder=True` at all outside reductions.

## Example
```python
acc = tl.dot(a, b)
tl.store(c_ptr + tl.arange(0, BM * BN), tl.view(acc, (BM * BN,)))
```

## Use instead
```python
acc = tl.dot(a, b)
tl.store(c_ptr + tl.arange(0, BM * BN), tl.reshape(acc, (BM * BN,)))
```
or store the 2D tile with 2D offsets.

## Versions
Measured on the H200 with triton 3.6.0: a `tl.dot` tile flattened with `tl.view` and stored
came out permuted in 3/3 shapes (max abs error 34-55), the same kernel with `tl.reshape` matched.
Triton 3.9.0 still emits the reordering reshape (`allow_reorder`, no layout conversion).
Triton's developers have proposed ignoring `can_reorder` (PR #11179); in a version that does,
the rule no longer bites. The interpreter never reorders.
"""
    references = """
- triton-lang/triton #2210 ("View and order": hours lost to `view` reordering), #2829 (`tl.view`
  is a footgun: TorchInductor's `[32, 1]` views), #2454 (view before `tl.dot` gives NaN), #1467
  (broadcast after view picks the wrong axis), #9001 (why `view` sets `can_reorder=True`; the
  maintainers' answer), PR #3480 (the deprecation warning and `can_reorder`), PR #11179
  (proposal to drop reordering reshapes; reductions named as the legitimate use).
- Triton 3.9.0 on the CPU, compiled for sm_90: `tl.reshape(acc, (4096,), can_reorder=True)` of a
  64x64 `tl.dot` result becomes `tt.reshape ... allow_reorder : tensor<64x64xf32, #mma> ->
  tensor<4096xf32, #blocked>` with no layout conversion (the registers are reinterpreted);
  without the flag the reshape goes through a `#linear` layout and a `convert_layout`.
  `TRITON_INTERPRET=1` never reorders, so the interpreter cannot show the bug.
"""

    def finish(self, ctx):
        reported: set[int] = set()
        # Most kernels have no reordering reshape: look at the stores and dots of those that do.
        kernels = {id(k.node) for call in ctx.nodes(ast.Call) if _reshapes(ctx, call)
                   for k in [ctx.kernel_of(call, "triton")] if k is not None}
        if not kernels:
            return
        for call in ctx.nodes(ast.Call):
            kernel = ctx.kernel_of(call, "triton")
            if kernel is None or id(kernel.node) not in kernels:
                continue
            consumed = _consumed_values(ctx, call)
            if consumed is None:
                continue
            how, values = consumed
            for value in values:
                view = dataflow.reaches(ctx, value, lambda n: reorders(ctx, n), lambda n: dataflow.is_reduction(ctx, n))
                if view is None or id(view) in reported:
                    continue
                reported.add(id(view))
                yield Report(view, f"`{short(view)}` may reorder elements (a reshape with `can_reorder=True`) "
                                   f"and its result {how}: values land in the wrong places; use "
                                   "`tl.reshape` without `can_reorder`")
