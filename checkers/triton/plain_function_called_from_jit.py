"""KL134 plain-function-called-from-jit: a Triton kernel passes tensors to a function without ``@triton.jit``."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.triton.blocks import tensor_origin
from kernelint.model.dsl import triton
from kernelint.model.dsl.versioning import show
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree

_COMPUTES = (ast.BinOp, ast.Compare, ast.UnaryOp, ast.AugAssign, ast.Subscript)
_REJECTS_ANY_REFERENCE = next(c for c in triton.API_CHANGES if c.api == triton.PLAIN_FUNCTION_REFERENCE_REJECTED)


class PlainFunctionCalledFromJit(Rule):
    code = "KL134"
    name = "plain-function-called-from-jit"
    family = "triton-correctness"
    dsl = "triton"
    severity = Severity.ERROR
    default_enabled = True
    evidence_class = "compile"
    summary = ("A Triton kernel passes a tensor to a plain Python `def` of the file: the compiler calls it at "
               "trace time, where Triton operations on the tensor fail to compile.")
    node_types = (ast.Call,)
    doc = """
## What it does
Flags a call, inside a `@triton.jit` function, to a function of the same file that has no
decorator (a plain `def`) when an argument is shown to be a traced tensor (computed from
`tl.program_id`, `tl.load`, `tl.arange`, a constructor, or a runtime parameter of a launched
kernel) and the function computes with its arguments (arithmetic, comparisons, indexing or
`triton.language` calls).

When the code targets Triton 3.5 or later (`--triton-version`, the project's pin, or the
installed release), it also reports a plain helper called with only constexprs or returning its
argument (`_block_for(BLOCK_SIZE)`), which those releases refuse too; for earlier targets such
helpers run at compile time and stay unreported. It stays silent on functions with any decorator
(`@triton.jit`, `@tl.constexpr_function`, a project's own wrapper), on names bound more than once
(`gelu = triton.jit(gelu)`), on calls in the kernel's decorators (`@triton.autotune(configs=
get_configs())`, heuristics lambdas: host code), and on functions of other modules.

## Why is this bad?
Triton compiles a `@triton.jit` function by reading its source; a call to a function that is
neither `@triton.jit` nor a Triton builtin is made in Python while the kernel is traced, with the
kernel's tensors as arguments. Every Triton operation on them (`x * 0.5`, `tl.exp(x)`, `x < n`)
then runs outside the compiler and fails: "Did you forget to add @triton.jit ? (`_semantic`
argument must be provided outside of JIT functions.)". From Triton 3.5 the kernel's dependency
scan rejects any plain function it references before tracing starts: "RuntimeError: Unsupported
function referenced: <function silu ...>" (NVIDIA/TransformerEngine #2579, PR #2286), whatever
the arguments. The cuTile convention "helpers stay plain `def`" does not carry over, and under
`TRITON_INTERPRET=1`, where kernels run as Python, the same code works, so the error shows only
on the GPU.

Measured on the H200 (Triton 3.6, the record below): the pair's SiLU helper as a plain `def`
failed both cases with "Unsupported function referenced"; decorated with `@triton.jit` it matched
`torch.nn.functional.silu`. Calls that pass tensors fail on every Triton release; the version
of the other case was read from the wheels (3.4.0 has no such check, 3.5.1 and 3.6.0 do).

## Example
```python
def gelu(x):
    return 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))

@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, gelu(x), mask=offs < n)
```

## Use instead
```python
@triton.jit
def gelu(x):
    return 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
```
"""
    references = """
- triton-lang/triton PR #1429 (the error for a non-Triton function called from a Triton function:
  "Decorate it with @triton.jit to fix this"), issue #566 (the `_builder`/`_semantic` error).
- GitHub issue 23 item 8: the cuTile seed's "helpers stay plain def" does not carry over to Triton.
"""

    def check(self, node, ctx):
        kernel = ctx.kernel_of(node, "triton")
        if not isinstance(node.func, ast.Name) or kernel is None or not _in_body(ctx, node, kernel.node):
            return
        helper = _plain_function(ctx, node)
        if helper is None:
            return
        arguments = [*node.args, *(k.value for k in node.keywords)]
        tensor = next((a for a in arguments if tensor_origin(ctx, a) is not None), None)
        if tensor is not None and _computes_with_arguments(ctx, helper):
            yield Report(node, f"`{helper.name}` is a plain function called from Triton kernel code with tensor "
                               f"`{short(tensor)}`: Triton calls it while tracing and its tensor operations fail "
                               f"to compile; decorate `{helper.name}` with `@triton.jit`")
            return
        target = ctx.target("triton")
        if target.at_least(_REJECTS_ANY_REFERENCE.at):
            yield Report(node, f"`{helper.name}` is a plain function referenced from Triton kernel code: Triton "
                               f"{show(_REJECTS_ANY_REFERENCE.at)} and later refuse to compile the kernel "
                               f"(RuntimeError: Unsupported function referenced), whatever the arguments; this "
                               f"code targets {target.describe()}; decorate `{helper.name}` with `@triton.jit` "
                               f"(or `@tl.constexpr_function` for a compile-time helper)")


def _in_body(ctx, node: ast.AST, function: ast.AST) -> bool:
    """``node`` is in ``function``'s body, not its decorators (``@triton.autotune(configs=get_configs())``
    runs on the host), defaults or annotations."""
    child = node
    for ancestor in ctx.ancestors(node):
        if ancestor is function:
            return any(statement is child for statement in function.body)
        child = ancestor
    return False


def _plain_function(ctx, call: ast.Call) -> ast.FunctionDef | None:
    """The undecorated ``def`` that is the only binding of the called name, or None."""
    definitions = ctx.definitions(call.func.id, call)
    if len(definitions) != 1:
        return None
    function = definitions[0].node
    if not isinstance(function, ast.FunctionDef) or function.decorator_list:
        return None
    return function


def _computes_with_arguments(ctx, function: ast.FunctionDef) -> bool:
    for node in subtree(function):
        if isinstance(node, _COMPUTES):
            return True
        name = ctx.call_name(node) if isinstance(node, ast.Call) else None
        if name is not None and name.startswith(triton.TL):
            return True
    return False
