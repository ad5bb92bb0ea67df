"""KL207 per-tensor-launch-loop: a host loop that launches one kernel per tensor of a list, each
launch writing its piece of one shared output at a running offset (cat/stack/split style)."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Confidence, Severity
from kernelint.model.core import dataflow
from kernelint.model.core.loops import assigned_in, item_loop
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree

#: Host tensor methods that hand the kernel the same tensor's data.
_SAME_DATA = frozenset({"contiguous", "view", "reshape", "flatten", "cuda", "to", "view_as"})


class PerTensorLaunchLoop(Rule):
    code = "KL207"
    name = "per-tensor-launch-loop"
    family = "triton-launch"
    dsl = "triton"
    severity = Severity.WARNING
    confidence = Confidence.MEDIUM
    evidence_class = "perf"
    summary = "One kernel launch per tensor of a list, each at a running offset of one output."
    node_types = (ast.Call,)
    doc = """
## What it does
Flags a Triton launch inside a host `for` loop over a list of tensors (`for t in tensors`,
`enumerate`, `zip`, or `range(len(tensors))` with `tensors[i]`) that passes the current tensor
to the kernel together with a running offset the loop advances (`start += t.numel()`): one
logical operation (`cat`, `stack`, `split`, a multi-tensor copy) split into one launch per
tensor. Stays silent on loops over sizes, block sizes or dtypes, on loops whose launches are
independent (no running offset, e.g. benchmarks over inputs), on kernels that run `tl.dot`
(a matrix multiply per tensor outlasts its launch; the seed exempts compute-bound operations
too) and on kernels defined in another module.

## Why is this bad?
Each launch costs several microseconds of host time, and small tensors keep the GPU busy for
less than that: the launches run one after another and the GPU waits for the host. Launching
one kernel for several tensors (a grid axis over the tensors, the sources passed as a few
pointers or a pointer table) pays the launch cost once per group.

Measured (*Evidence*): concatenating 16-128 tensors of 1,024-262,144 elements, launching once
per group of four tensors instead of once per tensor was 2.44-3.49x faster (median 2.49x) with
the same kernel and block size on an H200. With 8 tensors of 16M elements, where the copies
dominate, the difference shrank to 1.19x (a control case, not counted).

## Example
```python
start = 0
for t in tensors:
    n = t.numel()
    copy_kernel[(triton.cdiv(n, BLOCK),)](t, out, start, n, BLOCK=BLOCK)
    start += n
```

## Use instead
```python
for first in range(0, len(tensors), 4):
    group = tensors[first:first + 4]
    ...  # sizes, offsets and sources of up to four tensors
    copy4_kernel[(triton.cdiv(max(sizes), BLOCK), len(group))](out, *sources, *starts, *sizes, BLOCK=BLOCK)
```
"""
    references = f"""
- {SEED}, 'Triton Optimization Reference', section '8. Batched Kernel Launches' (claims 2-4x for
  small tensors, after TileGym's and FlagGems' `cat`).
"""

    def check(self, node, ctx):
        launch = ctx.launch_at(node, "triton")
        if launch is None or ctx.kernel_of(node) is not None or self._computes_dots(launch.kernel, ctx):
            return
        constexprs = launch.kernel.constexpr_names(ctx.qualname)
        runtime_args = [arg for name, arg in launch.bound_arguments().items() if name not in constexprs]
        runtime_args += [a for a in launch.args if isinstance(a, ast.Starred)]
        for loop in ctx.loops_of(node):
            items = item_loop(loop)
            if items is None:
                continue
            item = next((a for a in runtime_args if self._is_item(a, items, loop, ctx)), None)
            offset = next((a for a in runtime_args if self._advanced_in(a, loop)), None)
            if item is not None and offset is not None:
                yield Report(
                    node,
                    f"`{short(launch.kernel_expr)}` is launched once per tensor of "
                    f"`{short(items.sequences[0])}` (`{short(item)}` at running offset "
                    f"`{short(offset)}`); launch it for several tensors at once (a grid axis over "
                    "the tensors) to pay the launch cost once per group",
                )
                return

    @staticmethod
    def _computes_dots(kernel, ctx) -> bool:
        """Matrix-multiply kernels spend far longer than a launch per tensor (the seed's own
        exception: compute-bound operations gain nothing from batching launches)."""
        return any(dataflow.is_dot(ctx, call) for call in subtree(kernel.node))

    @classmethod
    def _is_item(cls, expr, items, loop, ctx, depth: int = 0) -> bool:
        """``expr`` is the loop's current tensor: the item, a same-data method of it, or a name
        assigned one of those inside the loop."""
        if isinstance(expr, ast.Starred) or depth > 3:
            return False
        if items.is_item(expr):
            return True
        if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
                and expr.func.attr in _SAME_DATA):
            return cls._is_item(expr.func.value, items, loop, ctx, depth + 1)
        if isinstance(expr, ast.Name):
            for statement in assigned_in(loop, expr.id):
                if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                    if cls._is_item(statement.value, items, loop, ctx, depth + 1):
                        return True
        return False

    @staticmethod
    def _advanced_in(expr, loop) -> bool:
        """``expr`` reads a name the loop advances with ``+=`` (a running offset)."""
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        return any(
            isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add)
            for name in names for statement in assigned_in(loop, name)
        )
