"""KL101 hardcoded-pointer-type: Pointer cast to a fixed float element type; tensors of another
dtype are read at the wrong addresses."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Severity
from kernelint.model.dsl import triton
from kernelint.model.core import dataflow
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.index.masks import loads_feeding
from kernelint.model.project.host import DTypes, addressed_dtypes
from kernelint.model.triton.dtypes import CONVERSION_CALLS, conversion_target, triton_dtype
from kernelint.model.triton.memory import base_parameters
from kernelint.rules import Because, Report, Rule

#: Element types a kernel is commonly written to serve several of. fp8 formats are left out:
#: a kernel that casts to ``float8e4nv`` does fp8-specific scaling, so the format is its contract.
_GENERIC_FLOATS = frozenset({"float16", "bfloat16", "float32", "float64"})
_BYTE_TYPES = frozenset({"uint8", "int8"})


class HardcodedPointerType(Rule):
    code = "KL101"
    name = "hardcoded-pointer-type"
    family = "triton-pointers"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = "Pointer cast to a fixed float element type; tensors of another dtype are read at the wrong addresses."
    node_types = (ast.Call,)
    calls = CONVERSION_CALLS
    doc = """
## What it does
Flags a conversion to a pointer with a literal float element type in a Triton kernel:
`x.to(tl.pointer_type(tl.float16))` or `tl.cast(x, tl.pointer_type(tl.bfloat16))`, also through a
name bound to the pointer type. This is how pointer-table kernels (grouped GEMM, MoE, batched
ops) turn an address loaded from an `int64` table back into a typed pointer.

It stays silent when the element type comes from a constexpr (`tl.pointer_type(DTYPE)`) or from
another pointer (`x_ptr.dtype.element_ty`), and for integer element types, which index and
metadata tables fix by design. It also stays silent on fp8 element types (a kernel that casts to
`tl.float8e4nv` does format-specific scaling, so the format is its contract) and on views of a
byte buffer (`(workspace + offset).to(tl.pointer_type(tl.float32))` where `workspace` points to
`uint8`): there the kernel lays out its own workspace. Both forms came from real code
(flashinfer's quantized all-reduce, torchao's mxfp8 all-to-all) where a report would be false.

The addresses are followed into the host code of the whole project: the pointer table (or the
address parameter) at every launch of the kernel, in whichever module launches it, to the
tensors whose `data_ptr()` fill it (`torch.tensor([a.data_ptr() for a in group])`, a list grown
with `append`), and those tensors to where they are made, through the wrappers' callers. When
every launch points the cast at tensors of exactly its element type, the cast is what the project
passes and the rule stays silent; when some launch passes tensors of another dtype, the finding
names that dtype and where it is fixed. Where the host cannot be read to the end, the rule reports
the hardcoded type as before, naming no dtype.

## Why is this bad?
Pointer arithmetic advances by the element size of the pointer's type, and loads reinterpret the
bytes as that type. When the tensors behind the table are not that dtype, every load and store
lands on the wrong element: with fp32 tensors and an fp16 pointer, offsets are halved and each
value read is half of an fp32 bit pattern. The kernel runs and returns garbage; with a wider
pointer type than the tensor (fp32 pointer, fp16 tensor) it reads past the allocation and can
fault with an illegal address.

## Example
```python
a_ptr = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))
```

## Use instead
```python
a_ptr = tl.load(a_ptrs + g).to(tl.pointer_type(DTYPE))  # DTYPE: tl.constexpr, from the tensor
```
Pass `DTYPE=tl.float16` / `tl.bfloat16` / `tl.float32` from the host according to the tensors'
dtype, or take it from a typed pointer argument (`a_first_ptr.dtype.element_ty`).

The catalog classed this rule's effect as a crash; on an H200, and under `TRITON_INTERPRET=1`,
the pair's bad kernel (fp16 pointers, fp32 tensors) runs to completion and returns garbage
(inf), so its evidence class is numerics.
"""
    references = f"""
- {SEED}, 'Runtime errors', '`cudaErrorIllegalAddress`', 'Root Cause 1: Hardcoded pointer type
  mismatch (PRIMARY)'.
- {SEED}, 'Gotchas' table, row 'Pointer table type'.
"""

    def check(self, node, ctx):
        kernel = ctx.kernel_of(node, "triton")
        if kernel is None:
            return
        target = conversion_target(ctx, node)
        if target is None or _reinterprets_a_byte_buffer(ctx, node):
            return
        for value in ctx.values_of(target):
            if ctx.is_call(value, triton.POINTER_TYPE) and value.args:
                element = triton_dtype(ctx, value.args[0])
                if element in _GENERIC_FLOATS:
                    host = _pointed_to_dtypes(ctx, kernel, node)
                    if host is not None and host.only({element}):
                        return  # every launch in the project points it at tensors of exactly that type
                    other = sorted((name, where) for name, where in (host.known.items() if host else ())
                                   if name != element)
                    facts = _host_facts(host)
                    if other:
                        name, where = other[0]
                        yield Report(node, f"pointer cast to hardcoded element type `tl.{element}`, but it "
                                           f"points into {name} tensors ({where}): they are read and written "
                                           f"at the wrong addresses; take the type from a DTYPE constexpr",
                                     facts=facts)
                    else:
                        yield Report(node, f"pointer cast to hardcoded element type `tl.{element}`: tensors of "
                                           f"any other dtype are read and written at the wrong addresses; take "
                                           f"the type from a DTYPE constexpr", facts=facts)
                    return


def _host_facts(host: DTypes | None) -> tuple[Because, ...]:
    """What the host shows about the tensors behind the address, for ``--show-facts``."""
    if host is None:
        return (Because("the address is not read from a pointer table or an address parameter"),)
    facts = [Because(f"some launch points it into {name} tensors ({where})") for name, where in sorted(host.known.items())]
    if not host.complete:
        facts.append(Because("not every launch's tensors could be followed to where they are made"))
    return tuple(facts)


def _converted(conversion: ast.Call) -> ast.expr | None:
    """The value a pointer conversion converts: ``x`` in ``x.to(...)`` and ``tl.cast(x, ...)``."""
    func = conversion.func
    if isinstance(func, ast.Attribute) and func.attr == "to":
        return func.value
    return conversion.args[0] if conversion.args else None


def _pointed_to_dtypes(ctx, kernel, conversion: ast.Call) -> DTypes | None:
    """The dtypes of the host tensors the converted address points into, at every launch in the
    project: an address loaded from a pointer table parameter (``tl.load(a_ptrs + g)``) or taken
    as a parameter itself, each followed to what the host puts there (``x.data_ptr()``, a table
    of them). None when the address comes from anything else."""
    source = _converted(conversion)
    if source is None:
        return None
    parameters: set[str] = set()
    for load in loads_feeding(ctx, source):
        pointer = load.args[0] if load.args else None
        bases = base_parameters(ctx, kernel, pointer) if pointer is not None else frozenset()
        if not bases:
            return None
        parameters |= bases
    if not parameters and isinstance(source, ast.Name):
        definitions = reaching_definitions(ctx, source)
        if len(definitions) == 1 and isinstance(definitions[0].node, ast.arg) \
                and any(definitions[0].node is p for p in kernel.params):
            parameters.add(source.id)
    if not parameters:
        return None
    found = DTypes()
    for parameter in sorted(parameters):
        found.add(addressed_dtypes(ctx.project, kernel, ctx, parameter))
    return found


def _reinterprets_a_byte_buffer(ctx, conversion: ast.Call) -> bool:
    """The converted value is (an offset from) a pointer to bytes: the kernel lays out its own
    workspace (scales here, fp8 data there), so the element type is the layout, not a guess."""
    func = conversion.func
    source = func.value if isinstance(func, ast.Attribute) and func.attr == "to" else (
        conversion.args[0] if conversion.args else None)
    for term in dataflow.additive_terms(ctx, source) if source is not None else ():
        for value in ctx.values_of(term):
            if isinstance(value, ast.Call) and value is not conversion:
                inner = conversion_target(ctx, value)
                for pointer in ctx.values_of(inner) if inner is not None else ():
                    if ctx.is_call(pointer, triton.POINTER_TYPE) and pointer.args and \
                            triton_dtype(ctx, pointer.args[0]) in _BYTE_TYPES:
                        return True
    return False
