"""KL106 descriptor-without-allocator: in-kernel tensor descriptors need `triton.set_allocator`,
and nothing in the program sets one."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Severity
from kernelint.model.dsl import triton
from kernelint.model.dsl.versioning import OK, status_in
from kernelint.rules import Because, Report, Rule


class DescriptorWithoutAllocator(Rule):
    code = "KL106"
    name = "descriptor-without-allocator"
    family = "triton-memory"
    dsl = "triton"
    severity = Severity.ERROR
    default_enabled = False
    evidence_class = "crash"
    summary = "In-kernel `tl.make_tensor_descriptor` with no `triton.set_allocator` anywhere in the program."
    wants_finish = True
    doc = """
## What it does
Flags `tl.make_tensor_descriptor(...)` inside a Triton kernel when no `triton.set_allocator(...)`
call runs with that file: not in the file itself, not in a module it imports (transitively,
package `__init__.py` files included), not in a module that imports it, nor in what those
import. The modules are those of the file's project (the nearest directory with
`pyproject.toml`, `setup.py`, `setup.cfg` or `.git`), read once per process; the command line
and the flake8/pylint plugins answer the same way.

It follows the targeted Triton release (`--triton-version`, `triton-version`, the project's
pins, the installed Triton, or the newest kernelint knows): the call is
`tl._experimental_make_tensor_descriptor` on 3.3.x and `tl.make_tensor_descriptor` from 3.4.0
(`triton.set_allocator` itself first ships in 3.3.0); on a target without the call KL131 reports
it instead. It stays silent when any of those modules calls `set_allocator`, such as a package utility that
sets it at import time or the test or benchmark that imports the kernels. Host-side descriptors
(`triton.tools.tensor_descriptor.TensorDescriptor`) need no allocator and are not reported.

## Why is this bad?
A descriptor built inside the kernel lives in global scratch memory that Triton asks the
program's allocator for at launch. Without one the launch stops with `RuntimeError: Kernel
requires a runtime memory allocation, but no allocator was set`.

## Example
```python
@triton.jit
def copy_kernel(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    ...

copy_kernel[grid](x, y, M, N, BM=64, BN=64)
```

## Use instead
```python
def alloc_fn(size: int, alignment: int, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)

triton.set_allocator(alloc_fn)
copy_kernel[grid](x, y, M, N, BM=64, BN=64)
```
"""
    references = f"""
- {SEED}, 'TensorDescriptor Pattern', 'TMA Setup (Required Once)'.
"""
    prior_evidence = """
Measured for the project's facts before this rule had a pair (H200, triton 3.6.0): an in-kernel
`tl.make_tensor_descriptor` with no allocator set fails at launch with `RuntimeError: Kernel
requires a runtime memory allocation, but no allocator was set. Use triton.set_allocator to
specify an allocator.` The rule's own pair reproduced that on the H200 (see *Evidence*), so the
severity is `error`. It stays off by default: no corpus project launches such a kernel without
an allocator (14 descriptor-building files were correctly silent), so its precision on real
code is unmeasured.
"""

    def finish(self, ctx):
        target = ctx.target("triton")
        # The device-side descriptor of the target release (3.3 spells it _experimental_...); where
        # the target has no such call KL131 reports it, and there is no allocator to miss.
        builders = [name for name in (triton.MAKE_TENSOR_DESCRIPTOR, triton.EXPERIMENTAL_MAKE_TENSOR_DESCRIPTOR)
                    if status_in(triton.API_CHANGES, name, target.version).state == OK]
        calls = [
            node for node in ctx.nodes(ast.Call)
            if builders and ctx.is_call(node, *builders) and ctx.kernel_of(node, "triton") is not None
        ]
        if not calls or any(ctx.is_call(node, triton.SET_ALLOCATOR) for node in ctx.nodes(ast.Call)):
            return
        if ctx.project.runs_with_allocator():
            return
        reported: set[int] = set()
        for call in calls:
            kernel = ctx.kernel_of(call, "triton")
            if id(kernel) in reported:
                continue
            reported.add(id(kernel))
            yield Report(call, f"`{kernel.name}` builds a tensor descriptor in the kernel, and no module "
                               f"that runs with this file calls `triton.set_allocator`: the launch fails "
                               f"with 'no allocator was set' (this code targets {target.describe()})",
                         facts=(Because(f"`{ctx.call_name(call)}` in `{kernel.name}` needs a global scratch "
                                        "allocation at launch", call),
                                Because(_searched(ctx.project.allocator_scope())),
                                Because(f"target: {target.describe()}")))


def _searched(modules: list[str]) -> str:
    """The fact that says where ``set_allocator`` was looked for."""
    if not modules:
        return "searched for `triton.set_allocator`: this file only (it belongs to no project); not called"
    shown = ", ".join(f"`{m}`" for m in modules[:6])
    more = f" and {len(modules) - 6} more" if len(modules) > 6 else ""
    return (f"searched for `triton.set_allocator` in the {len(modules)} modules that run with this file "
            f"(it, its importers, what they import, their packages' __init__): {shown}{more}; none calls it")
