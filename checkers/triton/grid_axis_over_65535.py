"""KL126 grid-axis-over-65535: grid axis 1 or 2 set to a product of input sizes (`B * H`), which
CUDA refuses to launch past 65535."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Confidence, Severity
from kernelint.model.reaching import value_at
from kernelint.model.sizes import product_factors, runtime_size
from kernelint.rules import Report, Rule

#: CUDA's largest gridDim.y / gridDim.z (axis 0 allows 2**31 - 1).
AXIS_LIMIT = 65535


class GridAxisOver65535(Rule):
    code = "KL126"
    name = "grid-axis-over-65535"
    family = "triton-launch"
    dsl = "triton"
    severity = Severity.ERROR
    #: The limit is certain; whether a project's inputs ever reach it is not (dense training
    #: batches rarely do, packed varlen and decode batches do).
    confidence = Confidence.MEDIUM
    evidence_class = "crash"
    summary = ("Grid axis 1 or 2 is a product of input sizes (`B * H`): past 65535 programs the "
               "launch fails with 'invalid argument'.")
    wants_finish = True
    doc = """
## What it does
Flags a Triton launch whose grid puts, on axis 1 or 2, a product of two or more sizes read from
the input tensors at run time (`B * H` with `B, T, H, K = q.shape`, `N * HV` with
`N = len(cu_seqlens) - 1`, `batch * nchunks`). Names are followed through their assignments, in
a tuple grid, a grid variable, a `lambda META: (...)` grid or a grid function.

It stays silent on axis 0 (its limit is 2^31 - 1), on products with a single runtime size
(`NT * NC` with a constant `NC`), on sizes divided by a tile (`triton.cdiv(T, BT)`), on values the
host caps (`min(B * H, 65535)`), on host parameters (their range is the caller's business) and
when the launching function compares anything with 65535 or 65536 (a host-side check or split).

## Why is this bad?
CUDA limits `gridDim.y` and `gridDim.z` to 65535 blocks. Triton passes the grid to the driver as
given, so once batch x heads (or sequences x heads in a varlen batch) passes 65535 the launch is
refused and PyTorch users see `RuntimeError: Triton Error [CUDA]: invalid argument`, an error
that names neither the grid nor the limit. It works in every test with small batches and fails
in production: flash-linear-attention hit it with `grid = (NK, NV, B * H)` at about 11,000
sequences of 6 heads, then again in its gated-delta state kernels at 2,050 sequences x 32 heads
during continuous-batching serving, and then audited the whole decode path for the same
pattern; unsloth had to back-port the fix to its vendored copy (Qwen3-Next's 32 value heads cap
a packed batch at 2,047 sequences). Triton's own block-sparse op put the number of non-zero
blocks on axis 1 and failed the same way for large language models.

## Example
```python
B, T, H, K = k.shape
grid = (NK, NV, B * H)
fused_recurrent_fwd_kernel[grid](q, k, v, o, T, H=H, K=K, V=V, BK=BK, BV=BV)
```

## Use instead
Put the large product on axis 0 and split it in the kernel:
```python
grid = (B * H * NV * NK,)           # kernel: i_bh, i_v, i_k from tl.program_id(0)
```
or swap axes so the product is axis 0 (`grid = (B * H, NV, NK)`), or loop over the excess
inside the kernel.

## Versions
Measured on the H200 with triton 3.6.0: 4100 x 16 = 65,600 programs on axis 1 fail with
`RuntimeError: Triton Error [CUDA]: invalid argument`; the same kernel with the product on axis
0 runs and matches. Triton 3.9.0 still hands the grid to `cuLaunchKernelEx` unchanged, so the
rule applies to every Triton version seen. `TRITON_INTERPRET=1` has no grid limit: CPU tests do
not catch it.
"""
    references = """
- triton-lang/triton #3299 ("Invalid Argument Error when Grid Dimension too Large": a batch-size
  grid axis), triton-lang/triton PR #1491 (block-sparse op: axis 1 moved to axis 0).
- fla-org/flash-linear-attention #172 (`B * H` on axis 2), PR #1077 (state kernels flattened onto
  axis 0) and #1096 (audit of the decode path); unslothai/unsloth-zoo PR #1092 (the back-port).
- Triton 3.9.0 source (`backends/nvidia/driver.c`): the grid goes to `cuLaunchKernelEx` as
  `gridDimY`/`gridDimZ` unchanged; nothing splits or checks it. The CPU interpreter has no limit,
  so `TRITON_INTERPRET=1` runs such a launch without error.
"""

    def finish(self, ctx):
        reported: set[int] = set()
        for launch in ctx.launches_of("triton"):
            if launch.grid is None or _checks_limit(ctx, launch.node):
                continue
            for entries in _grid_tuples(ctx, launch.grid):
                for axis, entry in enumerate(entries[1:3], start=1):
                    if id(entry) in reported:
                        continue
                    sizes = _runtime_factors(ctx, entry)
                    if len(sizes) < 2:
                        continue
                    reported.add(id(entry))
                    yield Report(
                        entry,
                        f"grid axis {axis} of `{launch.kernel.name}` is `{short(entry)}`, a product of "
                        f"input sizes ({', '.join(short(s, 24) for s in sizes)}): CUDA refuses axes 1 "
                        f"and 2 past {AXIS_LIMIT} ('invalid argument'); put the product on axis 0",
                    )


def _grid_tuples(ctx, grid: ast.expr) -> list[list[ast.expr]]:
    """The tuple/list entries a grid expression evaluates to: a literal, a name bound to one,
    a lambda or a local function returning one."""
    value = grid
    if isinstance(value, ast.Name):
        held = value_at(ctx, value)
        if held is not None:
            value = held
        else:
            functions = [d.node for d in ctx.definitions(value.id, value) if d.kind == "def"]
            if len(functions) == 1:
                returns = [n.value for n in ast.walk(functions[0]) if isinstance(n, ast.Return) and n.value]
                return [list(r.elts) for r in returns if isinstance(r, (ast.Tuple, ast.List))]
    if isinstance(value, ast.Lambda):
        value = value.body
    if isinstance(value, (ast.Tuple, ast.List)):
        return [list(value.elts)]
    return []


def _is_cap(ctx, node: ast.expr) -> bool:
    """``min(...)`` with a constant argument: a value the host bounds."""
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "min"
        and any(ctx.resolve_int(a) is not None for a in node.args)
    )


def _runtime_factors(ctx, entry: ast.expr) -> list[ast.AST]:
    """The size reads behind each factor of ``entry`` that grows with the input."""
    if _is_cap(ctx, entry):
        return []
    found = []
    for factor in product_factors(ctx, entry):
        if _is_cap(ctx, factor) or ctx.resolve_int(factor) is not None:
            continue
        size = runtime_size(ctx, factor)
        if size is not None:
            found.append(factor)
    return found


def _checks_limit(ctx, node: ast.AST) -> bool:
    """True when the function around ``node`` compares a value with 65535/65536: the author
    guards or splits the grid."""
    function = ctx.function_of(node)
    scope = function if function is not None else ctx.tree
    for compare in ast.walk(scope):
        if isinstance(compare, ast.Compare):
            for operand in (compare.left, *compare.comparators):
                if ctx.resolve_int(operand) in (AXIS_LIMIT, AXIS_LIMIT + 1):
                    return True
    return False
