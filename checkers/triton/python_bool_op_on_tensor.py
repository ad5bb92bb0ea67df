"""KL129 python-bool-op-on-tensor: Python ``and`` / ``or`` / ``not`` on a block tensor in a Triton kernel."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.edits import replace
from kernelint.findings import Fix, Severity
from kernelint.model.triton.blocks import block_origin, tensor_origin
from kernelint.model.core.reaching import value_at
from kernelint.rules import Report, Rule

#: Each operator, its elementwise replacement, what it does to blocks under TRITON_INTERPRET=1
#: (where a block is always truthy) and what compiled Triton makes of it.
_SPELLING = {
    ast.And: ("and", "&", "returns its last operand", "compiled Triton 3.4+ deprecates it"),
    ast.Or: ("or", "|", "returns its first operand", "compiled Triton 3.4+ deprecates it"),
    ast.Not: ("not", "~", "returns False", "compiled Triton inverts it elementwise"),
}


class PythonBoolOpOnTensor(Rule):
    code = "KL129"
    name = "python-bool-op-on-tensor"
    family = "triton-correctness"
    dsl = "triton"
    severity = Severity.WARNING
    default_enabled = True
    evidence_class = "numerics"
    summary = ("Python `and`/`or`/`not` on a block tensor in a Triton kernel: deprecated since Triton 3.4, "
               "and under TRITON_INTERPRET=1 it keeps one operand instead of combining the masks.")
    node_types = (ast.BoolOp, ast.UnaryOp)
    doc = """
## What it does
Flags Python's `and`, `or` and `not` applied inside a `@triton.jit` function to a value shown to
be a block tensor (one built from `tl.arange`, a `tl.zeros`/`tl.full` of a literal shape, or a
block pointer, through names and elementwise operations), typically a mask:
`mask = offs < n and offs >= lo`, `mask=(not is_pad) and in_bounds`.

It stays silent where the operands are scalars or constexprs, which is what `and`/`or`/`not` are
for in a kernel: `if pid < n_rows and HAS_BIAS:`, `if not IS_CAUSAL:`, `while i < n and go:`,
`tl.static_assert(BLOCK > 0 and BLOCK <= 1024)`; and where it cannot show an operand is a block
(a helper's parameter, a reduction, `x.shape[0]`).

## Why is this bad?
Python's boolean operators are not elementwise. The Triton compiler rewrites them on tensors to
`logical_and`/`logical_or`, warns since 3.4 ("Logical operators 'and' and 'or' are deprecated for
non-scalar tensors; please use '&' or '|' instead", once per line per compilation: FlagGems #1325,
pytorch #158463) and may reject them later; before 3.4 a chain `a and b and c` did not compile.
Under `TRITON_INTERPRET=1` the kernel runs as Python, where a block is always truthy: `a and b`
is `b`, `a or b` is `a`, and `not a` is `False`, so the interpreter, the mode used to debug a
kernel, computes with a different mask than the compiled kernel. `not` and `and` on a
non-boolean tensor are bit-casts to `int1` and fail to compile.

Measured (the record below): the reference pair's window mask `offs >= start and offs < end`,
run under `TRITON_INTERPRET=1` with Triton 3.6, kept only `offs < end` (131,072 of 262,144
elements wrong; a control with `start = 0` matched). Compiled on the H200 with Triton 3.6 the same
kernel computed the right mask in all 4 cases (committed run
`2026-12-01-h200-issue23-triton-pairs`): the cost on the GPU is the deprecation, not wrong
numbers, which is why the rule is a warning and not an error.

## Example
```python
offs = pid * BLOCK + tl.arange(0, BLOCK)
mask = offs < n and offs >= start
x = tl.load(x_ptr + offs, mask=(not is_pad) and mask, other=0.0)
```

## Use instead
```python
offs = pid * BLOCK + tl.arange(0, BLOCK)
mask = (offs < n) & (offs >= start)
x = tl.load(x_ptr + offs, mask=(~is_pad) & mask, other=0.0)
```
Parenthesize the comparisons: `&` binds tighter than `<`, so `offs < n & offs >= start` is a
chained comparison, not a conjunction. `kernelint check --fix` makes this rewrite for the whole
boolean expression (parentheses included) when every operand is a boolean tensor (a comparison of
a traced value, or `&`/`|`/`~` of such); where an operand is a constexpr or a non-boolean tensor
the rewrite is offered only with `--unsafe-fixes`, since `&` then differs from what Triton makes
of `and`.
"""
    references = """
- flagos-ai/FlagGems #1325 and PR #1337 (constant_pad, masked_select), #5744 and PR #5745 (23
  Cambricon kernel files): `and`/`or`/`not` on tensor masks replaced by `&`/`|`/`~`.
- pytorch/pytorch #158463 (flex attention masks warn on Triton 3.4), PR #159719 (inductor's
  `triton_helpers.py`).
- triton-lang/triton PR #6769 (boolean operators on tensors become elementwise with a deprecation
  warning; chains accepted), PR #6841 (Triton's own kernels moved to `&`/`|`).
- meta-recsys/generative-recommenders PR #561 (HSTU attention masks).
"""

    def check(self, node, ctx):
        if ctx.kernel_of(node, "triton") is None:
            return
        if isinstance(node, ast.BoolOp):
            operands = node.values
        elif isinstance(node.op, ast.Not):
            operands = [node.operand]
        else:
            return
        word, replacement, interpreted, compiled = _SPELLING[type(node.op)]
        block = next((operand for operand in operands if block_origin(ctx, operand) is not None), None)
        if block is None:
            return
        yield Report(node, f"Python `{word}` on block tensor `{short(block)}` is not elementwise: under "
                           f"TRITON_INTERPRET=1 it {interpreted} while {compiled}; "
                           f"use `{replacement}` with parenthesized operands", fix=_fix(ctx, node))


def _fix(ctx, node: ast.expr) -> Fix | None:
    """The whole boolean expression rewritten with ``&``/``|``/``~``, offered at its outermost
    boolean operator (an inner one's finding goes away with it). Safe when every operand is a
    traced boolean tensor (a comparison of one, or ``&``/``|``/``~`` of such), where the elementwise
    operators compute what Triton made of ``and``/``or``/``not``; otherwise offered as unsafe."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.BoolOp) or (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)):
        return None
    text = _elementwise(node)
    segment = ctx.source_segment(node) or ""
    if text is None or "#" in segment:  # a comment inside the expression would be lost
        return None
    return Fix("Use &, | and ~", (replace(node, text),), safe=_all_leaves_boolean_tensors(ctx, node))


_ATOMS = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant)


def _elementwise(expr: ast.expr) -> str | None:
    """``expr`` with ``and``/``or``/``not`` spelled ``&``/``|``/``~``; operands that are not
    atoms are parenthesized (``&`` binds tighter than ``<`` and than ``|``)."""
    if isinstance(expr, ast.BoolOp):
        joiner = " & " if isinstance(expr.op, ast.And) else " | "
        parts = [_operand(value) for value in expr.values]
        return None if None in parts else joiner.join(parts)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = _operand(expr.operand)
        return None if inner is None else f"~{inner}"
    return ast.unparse(expr)


def _operand(expr: ast.expr) -> str | None:
    text = _elementwise(expr)
    if text is None:
        return None
    return text if isinstance(expr, _ATOMS) else f"({text})"


def _all_leaves_boolean_tensors(ctx, expr: ast.expr) -> bool:
    if isinstance(expr, ast.BoolOp):
        return all(_all_leaves_boolean_tensors(ctx, value) for value in expr.values)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return _all_leaves_boolean_tensors(ctx, expr.operand)
    return _is_boolean(ctx, expr, 8) and tensor_origin(ctx, expr) is not None


def _is_boolean(ctx, expr: ast.expr, depth: int) -> bool:
    """``expr`` is a comparison, or ``&``/``|``/``^``/``~``/``and``/``or``/``not`` of comparisons,
    through single bindings."""
    if depth <= 0:
        return False
    if isinstance(expr, ast.Compare):
        return True
    if isinstance(expr, ast.BoolOp):
        return all(_is_boolean(ctx, value, depth - 1) for value in expr.values)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return _is_boolean(ctx, expr.operand, depth - 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _is_boolean(ctx, expr.left, depth - 1) and _is_boolean(ctx, expr.right, depth - 1)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Invert):
        return _is_boolean(ctx, expr.operand, depth - 1)
    if isinstance(expr, ast.Subscript):  # mask[:, None]
        return _is_boolean(ctx, expr.value, depth - 1)
    if isinstance(expr, ast.Name):
        value = value_at(ctx, expr)
        return value is not None and _is_boolean(ctx, value, depth - 1)
    return False
