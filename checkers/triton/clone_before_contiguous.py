"""KL210 clone-before-contiguous: a tensor cloned, then copied again by `.transpose(...).contiguous()`."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED, short
from kernelint.findings import Confidence, Severity
from kernelint.rules import Report, Rule

#: Views that reorder dimensions: `.contiguous()` after one of them copies (unless the swapped
#: dimensions have size 1).
_REORDERING_VIEWS = frozenset({"transpose", "permute", "swapaxes", "swapdims", "movedim", "t"})
_MAX_STEPS = 4


class CloneBeforeContiguous(Rule):
    code = "KL210"
    name = "clone-before-contiguous"
    family = "triton-host"
    dsl = "triton"
    severity = Severity.WARNING
    confidence = Confidence.MEDIUM
    default_enabled = False
    evidence_class = "perf"
    summary = "A tensor cloned, then copied again by `.transpose(...).contiguous()`."
    node_types = (ast.Call,)
    doc = """
## What it does
Flags `x.clone()` in a file that launches Triton kernels when the clone's only use is
`.transpose(...)` / `.permute(...)` followed by `.contiguous()` (on one line or through names):
the clone is copied a second time right away. Stays silent when the clone is used for anything
else (kept, returned, passed on) or when no reordering view follows.

Measured on the H200 (see *Evidence*): the extra copy costs 1.27x (1.23-1.28x over 4 shapes)
on an in-place RoPE over `q.clone()` then `q.transpose(1, 2).contiguous()`, so the severity is
`warning`. It stays off by default: no corpus file has the pattern, so its precision on real
code is unmeasured, and one case it cannot tell apart makes the clone necessary: when the
transpose leaves the tensor contiguous (it swaps a size-1 dimension), `.contiguous()` returns
the view itself, and without the clone the result would alias `x`.

## Why is this bad?
Both the clone and the contiguous copy read and write the whole tensor; for a memory-bound
kernel such as RoPE the extra copy costs about as much as the kernel. But mind what the clone
was for: the kernel works in place, and `.contiguous()` returns the view itself, without
copying, when the swapped dimensions have size 1 (`seq_len == 1` while decoding). Dropping the
clone then lets the kernel overwrite the caller's tensor. The safe single copy is
`x.transpose(1, 2).clone(memory_format=torch.contiguous_format)`, which always copies.

## Example
```python
q = q.clone()
q = q.transpose(1, 2).contiguous()
rope_kernel[grid](q, cos, sin, ...)  # rotates q in place
```

## Use instead
```python
q = q.transpose(1, 2).clone(memory_format=torch.contiguous_format)
rope_kernel[grid](q, cos, sin, ...)
```
"""
    references = f"""
- {SEED}, 'MEMORY LAYOUT PATTERNS', 'Performance Killer #9: Unnecessary Tensor Clones' (claims
  10-20%), and the regression table row 'Unnecessary clones'.
"""

    def check(self, node, ctx):
        if not (isinstance(node.func, ast.Attribute) and node.func.attr == "clone" and not node.args
                and not node.keywords) or ctx.kernel_of(node) is not None or not ctx.launches_of("triton"):
            return
        copy = self._copied_again(node, ctx)
        if copy is not None:
            yield Report(
                node,
                f"`{short(node)}` is copied again by `{short(copy)}`; one copy is enough: "
                "`.transpose(...).clone(memory_format=torch.contiguous_format)`",
            )

    @classmethod
    def _copied_again(cls, clone, ctx):
        """The `.contiguous()` call that copies ``clone``'s value after a reordering view, when
        that chain is the value's only use: in this function, or in a function it is passed to
        (``forward`` clones, ``rope_forward(q, ...)`` transposes), in this file or another."""
        value, reordered, here = clone, False, ctx
        for _ in range(_MAX_STEPS):
            parent = here.parent(value)
            if isinstance(parent, ast.Attribute) and isinstance(here.parent(parent), ast.Call):
                call = here.parent(parent)
                if parent.attr in _REORDERING_VIEWS:
                    value, reordered = call, True
                    continue
                if parent.attr == "contiguous":
                    return call if reordered else None
                return None
            if isinstance(parent, ast.Call) and value in parent.args:
                passed = cls._parameter_use(parent, parent.args.index(value), here, ctx)
                if passed is None:
                    return None
                value, here = passed
                continue
            uses = cls._only_use(value, here)
            if uses is None:
                return None
            value = uses
        return None

    @classmethod
    def _parameter_use(cls, call, position, here, ctx):
        """The one read, inside the function ``call`` calls, of the parameter at ``position``
        (with that function's file model); None when it is read more than once or not found."""
        functions = here.local_functions_called(call)
        callee_ctx = here
        if not functions:
            dotted = ctx.project.absolute(here, call.func)
            found = ctx.project.function_named(dotted) if dotted else None
            if found is None:
                return None
            functions, callee_ctx = [found[0]], found[1]
        if len(functions) != 1:
            return None
        params = [*functions[0].args.posonlyargs, *functions[0].args.args]
        if isinstance(call.func, ast.Attribute) and params and params[0].arg in ("self", "cls"):
            params = params[1:]
        if position >= len(params) or any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            return None
        parameter = params[position]
        definition = next((d for d in callee_ctx.definitions(parameter.arg, functions[0].body[0])
                           if d.node is parameter), None)
        uses = callee_ctx.uses_of(definition) if definition is not None else []
        return (uses[0], callee_ctx) if len(uses) == 1 else None

    @staticmethod
    def _only_use(value, ctx):
        """When ``value`` is assigned to a single name that is read exactly once, that read."""
        statement = ctx.parent(value)
        if not (isinstance(statement, ast.Assign) and statement.value is value and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)):
            return None
        definition = next((d for d in ctx.definitions(statement.targets[0].id, statement) if d.node is statement), None)
        uses = ctx.uses_of(definition) if definition is not None else []
        return uses[0] if len(uses) == 1 else None
