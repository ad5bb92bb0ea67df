"""KL124 masked-row-nan: online softmax over scores masked to -inf by a mask read from memory,
with no guard for a row whose scores are all masked: `exp(-inf - (-inf))` is NaN."""
from __future__ import annotations

import ast
import math

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.core import dataflow
from kernelint.model.index import access
from kernelint.model.index import symexpr as sx
from kernelint.model.index.access import Access
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.rules import Because, Report, Rule

_EXPS = frozenset({
    triton.TL + "exp", triton.TL + "exp2", triton.TL + "math.exp", triton.TL + "math.exp2",
    triton.TL + "extra.libdevice.exp", triton.TL + "extra.libdevice.exp2",
})
_MAXES = frozenset({triton.TL + "max", triton.TL + "maximum"})
#: A finite floor at least this negative keeps the running max finite (``-1e30``, ``-1e9``).
_FLOOR = -1e4


def _float_value(ctx, node: ast.AST) -> float | None:
    """The float a constant expression spells: ``-1e30``, ``float("-inf")``, ``-math.inf``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _float_value(ctx, node.operand)
        return None if inner is None else -inner
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        try:
            return float(node.args[0].value)
        except ValueError:
            return None
    if ctx.qualname(node) in ("math.inf", "numpy.inf", "torch.inf"):
        return math.inf
    if isinstance(node, ast.Name):
        values = dataflow.bound_values(ctx, node)
        if len(values) == 1:
            return _float_value(ctx, values[0])
    return None


def _is_neg_inf(ctx, node: ast.AST) -> bool:
    return _float_value(ctx, node) == -math.inf


def _mask_load(ctx, cond: ast.AST) -> ast.AST | None:
    """The per-lane ``tl.load`` ``cond`` depends on (a key-padding or attention mask, a bias), or
    None when it is built only from offsets and scalar bounds. Reductions are not looked through:
    ``offs == argmax(x)`` picks one lane, it cannot empty a row."""
    def vector_load(node: ast.AST) -> bool:
        if not dataflow.is_load(ctx, node):
            return False
        pointer = signature_argument(node, triton.SIGNATURES[triton.LOAD], "pointer")
        return pointer is not None and dataflow.is_offset_vector(ctx, pointer)

    return dataflow.reaches(ctx, cond, vector_load, prune=lambda n: dataflow.is_reduction(ctx, n))


def _reads_mask_from_memory(ctx, cond: ast.AST) -> bool:
    return _mask_load(ctx, cond) is not None


def _masked_fill(ctx, node: ast.AST) -> bool:
    """``tl.where(cond, s, -inf)`` / ``tl.where(cond, -inf, s)`` with ``cond`` read from memory."""
    if not ctx.is_call(node, triton.WHERE) or len(node.args) != 3:
        return False
    cond, left, right = node.args
    return (_is_neg_inf(ctx, left) or _is_neg_inf(ctx, right)) and _reads_mask_from_memory(ctx, cond)


def _is_max(ctx, node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = ctx.call_name(node)
    return name in _MAXES or (name is None and isinstance(node.func, ast.Attribute) and node.func.attr == "max")


def _finite_floor(ctx, node: ast.AST) -> bool:
    value = _float_value(ctx, node) if not isinstance(node, ast.Name) else None
    return value is not None and -math.inf < value <= _FLOOR


def _guards_infinity(ctx, kernel_node: ast.AST) -> bool:
    """The kernel compares something with -inf/+inf (``m == float("-inf")``): a guard."""
    for node in ast.walk(kernel_node):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                value = _float_value(ctx, operand)
                if value is not None and math.isinf(value):
                    return True
    return False


def _subtractions(ctx, expr: ast.AST) -> list[ast.BinOp]:
    found: list[ast.BinOp] = []

    def match(node: ast.AST) -> bool:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            found.append(node)
        return False

    dataflow.reaches(ctx, expr, match, prune=lambda n: _is_max(ctx, n) or dataflow.is_load(ctx, n))
    return found


def _row_broadcast(node: ast.AST) -> bool:
    """``x[:, None]``: a per-row value spread across the key axis."""
    return (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2
            and isinstance(node.slice.elts[0], ast.Slice) and isinstance(node.slice.elts[1], ast.Constant)
            and node.slice.elts[1].value is None)


def _row_flag_loads(ctx, cond: ast.AST) -> list[ast.Call] | None:
    """The loads of the per-row flags ``cond`` reads (``valid_row[:, None]``: padding tokens), when
    those are all the memory it reads; None when it reads none or also reads per-key memory (a
    data row can then lose every key)."""
    flags = [n for n in ast.walk(cond) if _row_broadcast(n) and _mask_load(ctx, n.value) is not None]
    if not flags:
        return None
    flag_ids = {id(n) for n in flags}
    other = dataflow.reaches(ctx, cond, lambda n: _mask_load(ctx, n) is not None and not _row_broadcast(n)
                             and not any(id(a) in flag_ids for a in ctx.ancestors(n)) and dataflow.is_load(ctx, n),
                             prune=lambda n: id(n) in flag_ids)
    if other is not None:
        return None
    return list({id(load): load for load in (_mask_load(ctx, n.value) for n in flags)}.values())


def _stored_value(ctx, access: Access) -> ast.AST | None:
    call = access.node
    if access.kind == "descriptor":
        is_store = isinstance(call.func, ast.Attribute) and call.func.attr == "store"
        return call.args[1] if is_store and len(call.args) >= 2 else None
    if access.kind in ("store", "block_store"):
        return signature_argument(call, triton.SIGNATURES[triton.STORE], "value")
    if access.kind == "atomic":
        return signature_argument(call, _atomic_signature(ctx, call), "val")
    return None


def _atomic_signature(ctx, call: ast.Call) -> tuple[str, ...]:
    return triton.SIGNATURES.get(ctx.call_name(call)) or triton.SIGNATURES[triton.ATOMIC_ADD]


def _store_mask(ctx, store: Access) -> ast.AST | None:
    if store.kind == "store":
        return signature_argument(store.node, triton.SIGNATURES[triton.STORE], "mask")
    if store.kind == "atomic":
        return signature_argument(store.node, _atomic_signature(ctx, store.node), "mask")
    return None


def _only_flagged_rows_and_dropped(ctx, kernel, fill: ast.Call, exp_call: ast.Call) -> bool:
    """The memory the mask reads is a per-row flag (``valid_row[:, None]``: padding tokens), so it
    empties whole rows or none, and every store (or atomic) of a value computed from the exps drops
    those rows: masked by that same flag (the NaN rows are the flagged rows), or through a block
    pointer or descriptor whose extent is the flag's own bound (``_padding_rows_past_extent``)."""
    loads = _row_flag_loads(ctx, fill.args[0])
    if loads is None:
        return False
    load_ids = {id(load) for load in loads}
    index = access.kernel_index(ctx, kernel)
    stores = [(a, v) for a in index.accesses if (v := _stored_value(ctx, a)) is not None]
    reached = [a for a, value in stores if dataflow.reaches(ctx, value, lambda n: n is exp_call) is not None]
    if not reached:
        return False
    past_extent = None
    for store in reached:
        mask = _store_mask(ctx, store)
        if mask is not None and dataflow.reaches(ctx, mask, lambda n: id(n) in load_ids) is not None:
            continue
        if past_extent is None:
            past_extent = _padding_rows_past_extent(index, loads)
        if not past_extent or not _drops_rows_past(ctx, index, store, past_extent):
            return False
    return True


def _padding_rows_past_extent(index, loads: list[ast.Call]) -> list[tuple[sx.Poly, sx.Poly]]:
    """(first row, extent) of the flags when each flag load reads rows ``start + lane`` masked to
    ``< extent`` with a false ``other`` (``tl.load(RowValid + offs_m, mask=offs_m < M, other=0)``):
    the rows padding empties are exactly the rows past the extent. Empty when any flag load is
    not of that form."""
    found = []
    by_node = {id(a.node): a for a in index.accesses}
    for load in loads:
        flag = by_node.get(id(load))
        if flag is None or flag.kind != "load" or flag.offset is None or not flag.mask_complete \
                or not _false(flag.other):
            return []
        lanes = [name for name in flag.offset.symbols() if name.startswith("lane:")]
        if len(lanes) != 1:
            return []
        start = sx.substitute(flag.offset, {lanes[0]: sx.ZERO})
        if flag.offset - start != sx.sym(lanes[0]):
            return []
        extents = [flag.offset - bound + 1 for bound in flag.mask]
        extents = [e for e in extents if not any(n.startswith(("lane:", "pid")) for n in e.symbols())]
        if len(extents) != 1:
            return []
        found.append((start, extents[0]))
    return found


def _false(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value in (0, False) and node.value is not None


def _drops_rows_past(ctx, index, store: Access, flags: list[tuple[sx.Poly, sx.Poly]]) -> bool:
    """``store`` goes through a block pointer whose ``boundary_check`` covers a dimension (or a
    descriptor, which the TMA unit clips in every dimension) whose extent and first row are each
    flag's: the rows past the extent, the padding rows, are not written."""
    block = store.block
    if block is None or store.kind not in ("block_store", "descriptor"):
        return False
    if block.descriptor:
        given = store.node.args[0] if store.node.args else None
        starts = tuple(index.value(e) for e in given.elts) if isinstance(given, (ast.Tuple, ast.List)) else ()
        checked = range(len(block.shape))
    else:
        starts, checked = block.offsets, store.boundary_check or ()
    for start, extent in flags:
        if not any(axis < len(block.shape) and axis < len(starts) and block.shape[axis] is not None
                   and block.shape[axis] == extent and starts[axis] == start for axis in checked):
            return False
    return True


class MaskedRowNan(Rule):
    code = "KL124"
    name = "masked-row-nan"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("Online softmax over scores masked to -inf by a mask from memory, with no guard for "
               "a fully masked row: the row becomes NaN.")
    wants_finish = True
    doc = """
## What it does
Flags `tl.exp(s - m)` / `tl.exp2(...)` in a Triton kernel (once per mask) when the scores `s`
were set to `-inf` by `tl.where(mask, s, float("-inf"))` with a mask read from memory (a
key-padding or attention mask tensor), `m` is a maximum of those scores (the running max of an
online softmax), and nothing guards the case where every score of a row is masked.

It stays silent when the kernel compares anything with infinity (`m == float("-inf")`, the usual
guard that replaces the max by 0), when the running max has a finite floor (`-1e30`,
`tl.maximum(m, -1e9)`), when the masked value is finite, and when the mask is built only from
offsets and scalar bounds (causal masks, `offs_n < seqlen_k`), whose rows always keep a key in
the blocks the kernel visits.

Also silent when the memory the mask reads is a per-row flag spread across the keys
(`row_ok[:, None]`, padding tokens) and every store (and atomic) of a value computed from the exps
is masked by that flag: the flag empties whole rows, those rows are the padding rows, and their NaN never
reaches memory. A mask that also reads per-key memory is still reported (a data row can lose
every key). The same holds when the flag is read for rows below a bound and is 0 past it
(`tl.load(row_ok_ptr + offs_m, mask=offs_m < M, other=0)`: the rows padding empties are exactly
the rows past `M`) and every store of the result goes through a block pointer whose
`boundary_check` covers a dimension of extent `M` starting at the flag's first row, or a tensor
descriptor of that extent (the TMA unit clips its stores): the padding rows are not written. A
block pointer that checks only the columns, or whose extent is another bound, is still reported.
An in-range row whose flag is 0 is NaN there too and is written: the rule takes a flag read for
the tensor's rows as the padding of the rows past its extent, and does not know the data.

## Why is this bad?
When a mask removes every key of a row in a block, the row's maximum is `-inf`, and
`exp(s - m)` evaluates `exp(-inf - (-inf)) = exp(NaN)`. The NaN enters the running sum and the
accumulator and never leaves: the whole output row is NaN, and in training the NaN spreads to
the weights. Rows like that are ordinary: a left-padded batch masks the first keys of every
query, a sliding window can exclude a whole block, a bottom-right causal mask with more queries
than keys empties the first rows. Kernels that pass their tests with random masks fail on these;
flashinfer's FA2 kernels produced NaN outputs and LSE on exactly these rows until every
exponent difference was clamped, TensorRT-LLM's no-loop kernel computed `exp(0) = 1` for rows
masked with a finite sentinel, and a cosmetic change to a Triton attention kernel with a `-inf`
additive mask turned its output into NaN.

## Example
```python
m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
...
    valid = tl.load(mask_ptr + offs_n) != 0
    qk = tl.where(valid[None, :], qk, float("-inf"))
    m_ij = tl.maximum(m_i, tl.max(qk, 1))
    p = tl.exp(qk - m_ij[:, None])
```

## Use instead
```python
    m_ij = tl.maximum(m_i, tl.max(qk, 1))
    m_safe = tl.where(m_ij == float("-inf"), 0.0, m_ij)
    p = tl.exp(qk - m_safe[:, None])          # a fully masked row gives p = 0, not NaN
```
and divide by `tl.where(l_i == 0, 1, l_i)` at the end.
"""
    references = """
- flashinfer-ai/flashinfer PR #4401 (NaN from `(-inf) - (-inf)` on fully masked rows: causal
  prefill with more queries than keys, empty ragged slices, empty split-KV chunks).
- NVIDIA/TensorRT-LLM #17477 (a fully masked row with a finite sentinel weighs every key 1).
- triton-lang/triton #1273 (an attention kernel with a `-inf` additive mask returning NaN).
- Dao-AILab/flash-attention #1930 (cited by the rule catalog for fully masked rows; not found
  in the searchable issue corpus).
"""

    def finish(self, ctx):
        guarded: dict[int, bool] = {}
        reported: set[int] = set()
        for call in ctx.nodes(ast.Call):
            if ctx.call_name(call) not in _EXPS or not call.args:
                continue
            kernel = ctx.kernel_of(call, "triton")
            if kernel is None:
                continue
            for sub in _subtractions(ctx, call.args[0]):
                running_max = dataflow.reaches(ctx, sub.right, lambda n: _is_max(ctx, n))
                if running_max is None:
                    continue
                fill = dataflow.reaches(ctx, sub.left, lambda n: _masked_fill(ctx, n))
                if fill is None or id(fill) in reported:
                    continue
                if dataflow.reaches(ctx, sub.right, lambda n: _finite_floor(ctx, n)) is not None:
                    continue
                if id(kernel) not in guarded:
                    guarded[id(kernel)] = _guards_infinity(ctx, kernel.node)
                if guarded[id(kernel)]:
                    break
                if _only_flagged_rows_and_dropped(ctx, kernel, fill, call):
                    continue
                reported.add(id(fill))
                load = _mask_load(ctx, fill.args[0])
                facts = [Because(f"scores set to -inf by `{short(fill, 60)}`", fill)]
                if load is not None:
                    facts.append(Because(f"the mask is read from memory: `{short(load, 60)}`", load))
                facts += [Because(f"`{short(sub.right, 30)}` is a maximum of those scores", running_max),
                          Because("the kernel compares nothing with -inf and the max has no finite floor")]
                yield Report(call, f"`{short(call)}` subtracts a running max from scores masked to -inf by "
                                   f"`{short(fill, 50)}`: a row whose keys are all masked gives "
                                   "exp(-inf - (-inf)) = NaN; replace a -inf max by 0 before the exps",
                             facts=tuple(facts))
                break
