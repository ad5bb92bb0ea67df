"""KL120 unmasked-padded-block: A load or store spans a block rounded up to a power of two from a
runtime size, with no mask for the padding lanes."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.core import dataflow
from kernelint.model.triton import memory
from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.index.launch import launch_sites
from kernelint.model.project import shapes
from kernelint.rules import Report, Rule
from kernelint.model.core.memo import kept_on
from kernelint.model.core.walk import subtree

_CLAMPS = frozenset({triton.TL + "minimum", triton.WHERE})
#: Modules whose functions are not the project's helpers.
_LIBRARIES = ("torch.", "triton.", "math.", "numpy.", "builtins.", "functools.", "os.")


class UnmaskedPaddedBlock(Rule):
    code = "KL120"
    name = "unmasked-padded-block"
    family = "triton-masking"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("A load or store over `tl.arange(0, B)`, with `B = triton.next_power_of_2(n)` on the host, "
               "has no mask: the padding lanes touch memory past `n`.")
    per_kernel = "triton"
    doc = """
## What it does
Flags a `tl.load`/`tl.store` without `mask=` whose pointer is built from `tl.arange(0, B)` (or
`tl.arange(a, B)`), where `B` is a `tl.constexpr` that a launch of the kernel passes as
`triton.next_power_of_2(n)` of a size known only at run time: directly, through a host name,
through `max(16, triton.next_power_of_2(n))`, or returned by a host helper
(`BLOCK=block_size(n)`; `kernelint/model/project/shapes.py`). Launches in the modules that import
the kernel count too, and an unmasked access in a `@triton.jit` helper the kernel passes the
block to (`_load_row(x_ptr, BLOCK)`) is reported in the helper.

Silent when the access has a mask, when the offsets are wrapped or clamped (`offs % n`,
`tl.minimum(offs, n - 1)`, `tl.where`), when the block is capped on the host (`min(64,
triton.next_power_of_2(K))`: the kernel loops over the size in blocks), when the host allocates the
accessed tensor with the padded block in its shape, when the access sits under an `if` (kernels
take the unmasked path only when a constexpr says the block is full: `if EVEN_N:`), for block
pointers and tensor descriptors (their bounds are checked by `boundary_check`/the descriptor), and
when `B` is rounded from a constant.

## Why is this bad?
`next_power_of_2(n)` is larger than `n` for every `n` that is not a power of two. Without a mask,
the lanes from `n` to `B` read and write past the row: a row-wise kernel reads the next row into
its reductions and writes its padding into the next row, and the last row leaves the tensor. The
outputs are wrong for every non-power-of-two size, while tests with sizes like 1024 or 4096 pass.
Whether the access past the end of the allocation also faults depends on what lies behind it
(PyTorch's caching allocator usually hides it), so the visible symptom is wrong numbers.

## Example
```python
offs = tl.arange(0, BLOCK)
x = tl.load(x_ptr + row * stride + offs)
...
softmax_kernel[(n_rows,)](x, y, x.stride(0), n_cols, BLOCK=triton.next_power_of_2(n_cols))
```

## Use instead
```python
x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=-float("inf"))
```
"""
    references = """
- triton-lang/triton#435 (an unmasked row load read the next entries of the flattened matrix);
  vllm-project/vllm-ascend PR #13643 review (hidden-size offsets without masks: use a
  power-of-two block and mask the lanes past the hidden size).
- Triton tutorial 02 (fused softmax): the row block is `next_power_of_2(n_cols)` and every load
  and store carries `mask=col_offsets < n_cols`.
- The catalog's crash claim was rescoped to numerics: out-of-bounds lanes inside the caching
  allocator's block do not fault; they read and write neighbouring rows.
"""

    def check_kernel(self, kernel, ctx):
        """``kernel``'s turn of the file's pass: its own loads and stores, then its helpers',
        each reported once, by the first kernel in the file whose turn reaches it. Only the
        earlier kernels that share a body with it (they call it, or a helper it calls) can take
        one first: those are in its component of the call graph, as per-kernel rules require."""
        bodies, mine = self._turn(ctx, kernel)
        if not mine:
            return []
        earlier: set[int] = set()
        for other in ctx.kernels_of("triton"):
            if other is kernel:
                break
            other_bodies, theirs = self._turn(ctx, other)
            if other_bodies & bodies:
                earlier.update(call for call, _ in theirs)
        return [report for call, report in mine if call not in earlier]

    def _turn(self, ctx, kernel) -> tuple[set[int], list]:
        """(the kernels whose loads and stores ``kernel``'s turn looks at: its own and its
        helpers'; (id of the call, report) for each it reports, before any other kernel's turn
        is counted), once per file model and kernel."""
        turns = kept_on(ctx, "KL120_turns")
        key = id(kernel.node)
        if key not in turns:
            padded = self._padded(ctx, kernel)
            bodies, found = {key}, []
            if padded is not None:
                blocks, sized = padded
                reported: set[int] = set()
                found.extend(self._unmasked(ctx, kernel, blocks, sized, reported, ""))
                for helper, helper_blocks, helper_sized in self._helpers(ctx, kernel, blocks, sized):
                    bodies.add(id(helper.node))
                    found.extend(self._unmasked(ctx, helper, helper_blocks, helper_sized, reported,
                                                f" (in `{helper.name}`, called from `{kernel.name}`)"))
            turns[key] = (bodies, found)
        return turns[key]

    @staticmethod
    def _padded(ctx, kernel):
        """(block parameter -> the host value rounded up to a power of two, the pointer
        parameters whose tensors are allocated with that block in their shape) over the
        kernel's launches, or None when no launch passes a padded block."""
        padded: dict[str, ast.AST] | None = None
        sized: set[str] = set()
        constexprs = kernel.constexpr_names(ctx.qualname)
        for site in launch_sites(ctx, kernel):
            launch = site.launch
            if launch is None or launch.style != "subscript":
                continue
            bound = launch.bound_arguments()
            for name, value in bound.items():
                rounded = UnmaskedPaddedBlock._rounded_runtime_size(site.ctx, value) if name in constexprs else None
                if rounded is None:
                    continue
                padded = {} if padded is None else padded
                padded.setdefault(name, value if isinstance(value, ast.Call) else rounded)
                sized |= {p for p, tensor in bound.items()
                          if UnmaskedPaddedBlock._allocated_with(site.ctx, tensor, value)}
        return (padded, sized) if padded is not None else None

    def _unmasked(self, ctx, kernel, blocks, sized, reported, where):
        """(id of the call, report) per unmasked load or store over a padded block."""
        for access in memory.accesses(ctx, kernel):
            call = access.call
            name = ctx.call_name(call)
            if name not in (triton.LOAD, triton.STORE) or id(call) in reported:
                continue
            signature = triton.SIGNATURES[name]
            mask = signature_argument(call, signature, "mask")
            if mask is not None and not (isinstance(mask, ast.Constant) and mask.value is None):
                continue
            if signature_argument(call, signature, "boundary_check") is not None or self._guarded(ctx, kernel, call):
                continue
            block = self._padded_arange(ctx, signature_argument(call, signature, "pointer"), blocks)
            if block is not None and not (access.parameters & sized):
                reported.add(id(call))
                verb = "load" if name == triton.LOAD else "store"
                yield id(call), Report(
                    call,
                    f"unmasked {verb} over `tl.arange(..., {block})`{where}, and `{block}` is "
                    f"`{ast.unparse(blocks[block])}` on the host: the lanes past the real size "
                    "touch memory beyond it; add a mask",
                )

    @staticmethod
    def _helpers(ctx, kernel, blocks, sized):
        """The ``@triton.jit`` helpers ``kernel`` calls with a padded block (``_row(x_ptr, BLOCK)``):
        each with its own parameter names for the blocks and the sized pointers passed to it."""
        for call in subtree(kernel.node):
            if not isinstance(call, ast.Call) or ctx.function_of(call) is not kernel.node:
                continue
            functions = ctx.local_functions_called(call)
            helper = ctx.kernel_of(functions[0].body[0], "triton") if len(functions) == 1 else None
            if helper is None or helper is kernel:
                continue
            params = [p.arg for p in helper.params]
            passed = {**dict(zip(params, call.args)), **{k.arg: k.value for k in call.keywords if k.arg}}
            helper_blocks = {p: blocks[a.id] for p, a in passed.items() if isinstance(a, ast.Name) and a.id in blocks}
            if helper_blocks:
                helper_sized = {p for p, a in passed.items() if isinstance(a, ast.Name) and a.id in sized}
                yield helper, helper_blocks, helper_sized

    @staticmethod
    def _rounded_runtime_size(ctx, value):
        """The ``triton.next_power_of_2(n)`` of a non-constant ``n`` that ``value`` is, written
        at the launch or returned by a host helper (``get_block_size(n)``); through ``max``
        (``max(16, next_power_of_2(n))``), not through ``min``."""
        found = UnmaskedPaddedBlock._rounded_in_place(ctx, value)
        if found is not None or not UnmaskedPaddedBlock._calls_a_helper(ctx, value):
            return found
        size = shapes.size_of(ctx.project, ctx, value)
        rounded = shapes.rounded_up(size) if size is not None else None
        return ast.Name(id=shapes.render(rounded)) if rounded is not None else None

    @staticmethod
    def _calls_a_helper(ctx, value):
        """``value`` is computed by a host function of the project (``block_size(n)``): only then
        is it worth following into the helper."""
        def match(node):
            if not isinstance(node, ast.Call):
                return False
            if ctx.local_functions_called(node):
                return True
            name = ctx.call_name(node)
            return name is not None and not name.startswith(_LIBRARIES) and "." in name
        return dataflow.reaches(ctx, value, match) is not None

    @staticmethod
    def _rounded_in_place(ctx, value):
        """The ``triton.next_power_of_2(n)`` call of a non-constant ``n`` that ``value`` is."""
        def match(node):
            return (ctx.is_call(node, triton.NEXT_POWER_OF_2) and len(node.args) == 1
                    and ctx.resolve_int(node.args[0]) is None)

        def bounded(node):
            """``min(64, next_power_of_2(K))`` caps the block at a size the kernel loops over. A
            ``max`` does not: ``max(16, next_power_of_2(n))`` is at least the rounded size, so its
            padding lanes are still there (the seed's form)."""
            return isinstance(node, ast.Lambda) or (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "min")

        return dataflow.reaches(ctx, value, match, prune=bounded)

    @staticmethod
    def _allocated_with(ctx, tensor, block_value):
        """True when the host tensor ``tensor`` was allocated with the padded block in its shape
        (``torch.zeros(B, T, S)`` and ``BLOCK=S``): its padding lanes are inside it."""
        if not isinstance(block_value, ast.Name):
            return False
        for value in ctx.values_of(tensor):
            if isinstance(value, ast.Call) and any(
                isinstance(n, ast.Name) and n.id == block_value.id for a in value.args for n in ast.walk(a)
            ):
                return True
        return False

    @staticmethod
    def _guarded(ctx, kernel, call):
        for ancestor in ctx.ancestors(call):
            if ancestor is kernel.node:
                return False
            if isinstance(ancestor, (ast.If, ast.IfExp)):
                return True
        return False

    @staticmethod
    def _padded_arange(ctx, pointer, blocks):
        """The padded block name whose ``tl.arange`` reaches ``pointer`` unwrapped and unclamped."""
        if pointer is None:
            return None
        found = []

        def match(node):
            if ctx.is_call(node, triton.ARANGE):
                end = signature_argument(node, triton.SIGNATURES[triton.ARANGE], "end")
                if isinstance(end, ast.Name) and end.id in blocks:
                    found.append(end.id)
                    return True
            return False

        def prune(node):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
                return True
            return dataflow.is_load(ctx, node) or ctx.call_name(node) in _CLAMPS

        dataflow.reaches(ctx, pointer, match, prune)
        return found[0] if found else None
