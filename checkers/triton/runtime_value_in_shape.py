"""KL123 runtime-value-in-shape: a tensor shape in a Triton kernel built from a value the compiler
does not know: the kernel does not compile."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Severity
from kernelint.model.core.calls import argument, signature_argument
from kernelint.model.core.constexprs import RUNTIME_CALLS, runtime_origin
from kernelint.model.dsl import triton
from kernelint.model.triton.legacy import meta_parameter
from kernelint.rules import Report, Rule

#: Tensor methods (``x.reshape(...)``) that take a shape, the way their ``tl`` functions do.
_SHAPE_METHODS = frozenset({"reshape", "view", "broadcast_to"})
_SHAPE_FUNCTIONS = {triton.RESHAPE: "reshape", triton.VIEW: "view", triton.BROADCAST_TO: "broadcast_to"}


def _elements(shape: ast.expr | None) -> list[ast.expr]:
    if shape is None:
        return []
    return list(shape.elts) if isinstance(shape, (ast.Tuple, ast.List)) else [shape]


def shape_operands(call: ast.Call, ctx) -> tuple[str, list[ast.expr]] | None:
    """``(api, operands)`` for a call that sizes a tensor: the bounds of ``tl.arange``, the shape
    of ``tl.zeros``/``tl.full`` and of ``reshape``/``view``/``broadcast_to`` (function or method;
    their shape is a tuple or the trailing positional arguments)."""
    name = ctx.call_name(call)
    if name == triton.ARANGE:
        signature = triton.SIGNATURES[name]
        return "tl.arange", [a for a in (signature_argument(call, signature, "start"),
                                         signature_argument(call, signature, "end")) if a is not None]
    if name in (triton.ZEROS, triton.FULL):
        return f"tl.{name.rsplit('.', 1)[1]}", _elements(signature_argument(call, triton.SIGNATURES[name], "shape"))
    if name in _SHAPE_FUNCTIONS:
        api, positional = f"tl.{_SHAPE_FUNCTIONS[name]}", call.args[1:]
    elif name is None and isinstance(call.func, ast.Attribute) and call.func.attr in _SHAPE_METHODS:
        api, positional = f".{call.func.attr}()", call.args
    else:
        return None
    keyword = argument(call, "shape")
    if keyword is not None:
        return api, _elements(keyword)
    if len(positional) == 1:
        return api, _elements(positional[0])
    return api, [a for a in positional if not isinstance(a, ast.Starred)]


class RuntimeValueInShape(Rule):
    code = "KL123"
    name = "runtime-value-in-shape"
    family = "triton-compile"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "compile"
    summary = "A tensor shape in a Triton kernel uses a value known only at run time: it does not compile."
    node_types = (ast.Call,)
    calls = frozenset({triton.ARANGE, triton.ZEROS, triton.FULL, *_SHAPE_FUNCTIONS}) | {"." + m for m in _SHAPE_METHODS}
    doc = """
## What it does
Flags, inside a Triton kernel, a `tl.arange` bound or a shape given to `tl.zeros`, `tl.full`,
`tl.reshape`, `tl.view`, `tl.broadcast_to` (or the `.reshape`/`.view`/`.broadcast_to` methods)
that is computed from a value the compiler does not know:

- a parameter of a launched or autotuned kernel that is not annotated `tl.constexpr`
  (`n_cols`, `seq_len`);
- a value read from memory or a program id (`tl.load(...)`, `tl.program_id(0)`);
- a name bound in the kernel by a plain assignment (`BLOCK = 1024`, `C = M * 2`,
  `L = x.shape[0]`): Triton turns the value of every plain assignment into a tensor, so only
  `BLOCK: tl.constexpr = 1024` keeps it a constant.

It stays silent on `tl.constexpr` parameters, literals, inline expressions of those
(`tl.arange(0, 2 * BLOCK)`, `x.shape[0]` written in place), annotated constexpr locals, autotuned
and heuristic keys, and on the parameters of `@triton.jit` helpers that are not launched in the
file (their callers may pass constexprs).

## Why is this bad?
Triton sizes every block at compile time, one compilation per set of constexpr values. A shape
that depends on a run-time value cannot be compiled, and the kernel fails on its first launch
with `arange's arguments must be of type tl.constexpr` or `Shape element 0 must have type
constexpr[int]`, pointing at the line but not at the assignment that caused it. Users keep
hitting it with code that looks constant: the kernel from OpenAI's Triton announcement set
`BLOCK_SIZE = 1024` inside the kernel and failed this way for readers; generated code that
passed the element count as a plain integer failed the same way. The conversion guide's note
that dynamic shapes are fine is wrong for Triton: the size must be a constexpr (bucketed with
`triton.next_power_of_2` on the host) and the tail handled with a mask.

## Example
```python
@triton.jit
def softmax_kernel(y_ptr, x_ptr, stride, n_cols):
    row = tl.program_id(0)
    cols = tl.arange(0, n_cols)
    x = tl.load(x_ptr + row * stride + cols)
```

## Use instead
```python
@triton.jit
def softmax_kernel(y_ptr, x_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)          # BLOCK = triton.next_power_of_2(n_cols) on the host
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
```

## Versions
The same on triton 3.6.0 (H200) and 3.9.0 (compiled for sm_90 on the CPU): a block size
parameter without `tl.constexpr` fails with `arange's arguments must be of type tl.constexpr`,
and so do `B = 16` and `C = M * 2` assigned in the kernel before `tl.arange(0, B)`; `C:
tl.constexpr = M * 2` and `tl.arange(0, M * 2)` compile and run correctly.
"""
    references = f"""
- triton-lang/triton #2604 (the announcement's softmax with a local `BLOCK_SIZE = 1024`),
  #2735 (generated kernel with a plain-integer size), #1087 (which parameters must be
  constexpr), PR #572 and #1218 (the arange checks and their messages).
- {SEED}: its claim that dynamic shapes are supported does not hold for Triton.
- Triton 3.9.0 `compiler/code_generator.py` (`_sanitize_target_value`): the value of a plain
  assignment is unwrapped from constexpr and converted to a tensor; only an assignment
  annotated `tl.constexpr` stays a constant. Compiled for sm_90 on the CPU: `B = 16`,
  `C = M * 2` and `L = a.shape[0]` followed by `tl.arange(0, ...)` all fail; the inline forms
  compile. `TRITON_INTERPRET=1` raises the same errors.
"""

    def check(self, node, ctx):
        kernel = ctx.kernel_of(node, "triton")
        if kernel is None or meta_parameter(kernel) is not None:
            return  # a Triton 1.x kernel sizes blocks from meta['BLOCK']: KL133 says what it is
        found = shape_operands(node, ctx)
        if found is None:
            return
        api, operands = found
        for operand in operands:
            origin = runtime_origin(ctx, kernel, operand)
            if origin is None:
                continue
            source = _describe(origin, ctx)
            if operand is not origin:
                source = f"`{short(operand)}`, computed from {source}"
            yield Report(node, f"{api} is sized by {source}: shapes must be `tl.constexpr`, so the kernel "
                               "does not compile; pass a constexpr block size and mask the tail")
            return


def _describe(origin: ast.AST, ctx) -> str:
    if isinstance(origin, ast.Call):
        return f"`{short(origin)}`, a run-time value"
    definitions = ctx.definitions(origin.id, origin)
    if any(d.kind == "param" for d in definitions):
        return f"the parameter `{origin.id}`, which is not `tl.constexpr`"
    for definition in definitions:
        value = getattr(definition.node, "value", None)
        loaded = value is not None and next(
            (n for n in ast.walk(value) if isinstance(n, ast.Call) and ctx.call_name(n) in RUNTIME_CALLS), None)
        if loaded is not None:
            return f"`{origin.id}`, loaded at run time by `{short(loaded)}`"
    return f"`{origin.id}`, a plain assignment in the kernel (a tensor to Triton; annotate it `tl.constexpr`)"
