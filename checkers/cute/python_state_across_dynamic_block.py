"""KL320 python-state-across-dynamic-block: a name first bound inside a run-time `if`/`while`/
`for` of a CuTe DSL function and read after it, or a Python list/dict/set carried through such
a block that changes its number of items inside it."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.cute.blocks import (
    GROWING_METHODS,
    SHRINKING_METHODS,
    container_made_by,
    bindings_in_dynamic_blocks,
    dynamic_blocks_around,
)
from kernelint.model.dsl import cute
from kernelint.model.dsl.versioning import parse_version
from kernelint.model.core.reaching import reaching_definitions
from kernelint.model.core.walk import ancestors, subtree
from kernelint.rules import Report, Rule

_TRACED_AT_RUN_TIME = next(c for c in cute.API_CHANGES if c.api == cute.IF_TRACED_AT_RUN_TIME)
#: Bindings that make a new name inside a block (not parameters, loop targets or nested defs).
_BINDINGS = frozenset({"assign", "opaque", "with"})


def _block_word(block: ast.AST) -> str:
    return {ast.If: "if", ast.While: "while", ast.For: "for"}[type(block)]


class PythonStateAcrossDynamicBlock(Rule):
    code = "KL320"
    name = "python-state-across-dynamic-block"
    family = "cute-tracing"
    dsl = "cute"
    # Reproduced on the H200 (the kernel does not compile); the corpus gives it no finding.
    severity = Severity.ERROR
    evidence_class = "compile"
    summary = ("A name first bound inside a run-time `if`/`while`/`for` of a CuTe DSL function and read "
               "after it, or a Python list/dict/set that grows or shrinks inside one: the kernel does not compile.")
    wants_finish = True
    doc = """
## What it does
In a `@cute.jit` / `@cute.kernel` function, a run-time block is an `if` or `while` whose test is
not `cutlass.const_expr(...)` (CuTe DSL 4.1.0 and later trace every other test as a run-time
branch; on an older target only loops count) and a `for` over `range` / `cutlass.range`. The
rule reports:

- a read, after such a block, of a name that every binding reaching it binds inside the block
  (`if warp_idx == 0: tile = ...` then `tile` used after the `if`, also when both branches bind
  it);
- a call that changes how many items a Python list, dict or set holds (`append`, `extend`,
  `insert`, `pop`, `remove`, `clear`, `update`, `setdefault`, `add`, `discard`, `xs += [...]`)
  inside such a block when the container was built before it (a display, a comprehension,
  `list()` / `dict()` / `set()`).

It stays silent for blocks that run while tracing (`cutlass.const_expr` tests,
`cutlass.range_constexpr` and loops over Python iterables), names bound before the block as
well, containers built inside the block they change, item stores that keep the shape
(`xs[0] = v`, `d["a"] = v` on an existing key), a block that both grows and shrinks the same
container, parameters and loop variables, and plain helpers (the preprocessor rewrites only the
decorated functions).

Measured on the H200 (nvidia-cutlass-dsl 4.8.1; reproduced): the pair's list that gains an item
under a plain `if` on a `Constexpr` failed to compile in 2/2 cases with `DSLUserCodeError:
error[TYPE_UNSTABLE_JOIN]: factors has type list<1> on one path and list<2> on another`; with
`cutlass.const_expr` it compiled and matched. Every fixture form was also compiled without a GPU:
the 8 reported forms fail (NameError, TYPE_UNSTABLE_JOIN, CONTAINER_STRUCTURE_CHANGED,
TYPE_DYNAMIC_EXPR_UNSUPPORTED), the 8 silent ones compile, among them cutlass #2531's own form (a
list rebound to one of the same length), which compiles with 4.8.1. On by default: over 528 CuTe
DSL files (4,416 traced functions, 8,817 run-time blocks) it reports nothing.

## Why is this bad?
The preprocessor turns such a block into an `scf.if` / `scf.for` / `scf.while` and carries the
names it assigns through it as the block's results. A name that does not exist before the block
has nothing to carry on the other path, so it stays local to the block: reading it afterwards
fails when the kernel is compiled with `NameError: name '...' is not defined`. A Python
container is carried by its structure: a list that has three items on one path and four on the
other fails with `TYPE_UNSTABLE_JOIN`, a dict that gains a key with
`CONTAINER_STRUCTURE_CHANGED`, and a set with `TYPE_DYNAMIC_EXPR_UNSUPPORTED` (cutlass #2531
reported the older `unable to convert ... list to Numeric`; #3268 a value built inside a
warp-role `if`). Both branches of a run-time `if` are traced whatever the condition, so Python
code that meant "only when" runs on both paths.

## Example
```python
@cute.jit
def gather_stages(n: cutlass.Int32, flag: cutlass.Constexpr):
    stages = [0]
    if flag:                       # a plain `if` on a Constexpr: traced at run time
        stages.append(1)
```

## Use instead
```python
    if cutlass.const_expr(flag):   # decided while tracing: the list may change
        stages.append(1)
```
or bind names before the block and keep run-time values in `cutlass.Int32` / register tensors.
"""
    references = """
- NVIDIA/cutlass #2531 (a list rebound in a run-time `if`; maintainers: "DSL doesn't support python
  list at runtime. `cutlass.const_expr` force it get evaluated at compile-time"), #3268 (a value
  built inside a dynamic `if` block), #3632; issue 23 item 15.
- CuTe DSL documentation, control flow: `if`/`while` traced at run time unless `cutlass.const_expr`
  (changelog 4.1.0).
- Compile outcomes of each form with nvidia-cutlass-dsl 4.8.1 and no GPU:
  `benchmarks/cute_compile_only/python_state_across_dynamic_blocks.py`.
"""

    def finish(self, ctx):
        if_traced = ctx.target("cute").at_least(parse_version(_TRACED_AT_RUN_TIME.version))
        for kernel in ctx.kernels_of("cute"):
            function = kernel.node
            yield from self._escaping_names(ctx, function, if_traced)
            yield from self._reshaped_containers(ctx, function, if_traced)

    @staticmethod
    def _escaping_names(ctx, function, if_traced):
        reported: set[tuple[str, int]] = set()
        inside = bindings_in_dynamic_blocks(ctx, function, if_traced)
        if not inside:
            return
        blocks_of: dict[int, list[ast.AST]] = {}  # a binding reaches many reads

        def blocks_around(node: ast.AST) -> list[ast.AST]:
            found = blocks_of.get(id(node))
            if found is None:
                found = blocks_of[id(node)] = dynamic_blocks_around(ctx, node, function, if_traced)
            return found

        for node in ctx.nodes_in(function, ast.Name):
            if node.id not in inside or not isinstance(node.ctx, ast.Load):
                continue
            around_read = {id(b) for b in blocks_around(node)}
            if all(id(b) in around_read for binding in inside[node.id] for b in blocks_around(binding)):
                continue  # every binding in a run-time block is in one around this read too
            definitions = reaching_definitions(ctx, node)
            if not definitions or any(d.kind not in _BINDINGS or ctx.function_of(d.node) is not function
                                      for d in definitions):
                continue
            outer_blocks = []
            for definition in definitions:
                outside = [b for b in blocks_around(definition.node) if id(b) not in around_read]
                if not outside:
                    break  # this binding is visible where the name is read
                outer_blocks.append(outside[-1])
            else:
                block = outer_blocks[0]
                if (node.id, id(block)) in reported:
                    continue
                reported.add((node.id, id(block)))
                yield Report(node, f"`{node.id}` is bound only inside the run-time `{_block_word(block)}` at line "
                                   f"{block.lineno} and read after it: CuTe DSL keeps names first bound in a traced block "
                                   f"local to it (NameError when the kernel is compiled); bind `{node.id}` before the "
                                   f"block, or make the test `cutlass.const_expr(...)` if it is known while tracing")

    @staticmethod
    def _reshaped_containers(ctx, function, if_traced):
        changes: dict[tuple[int, str], list[tuple[ast.AST, str, ast.AST, str]]] = {}
        candidates = [*ctx.nodes_in(function, ast.Call), *ctx.nodes_in(function, ast.Assign),
                      *ctx.nodes_in(function, ast.AugAssign)]
        candidates.sort(key=lambda node: (node.lineno, node.col_offset))
        for node in candidates:
            target, verb = _container_change(node)
            if target is None:
                continue
            blocks = dynamic_blocks_around(ctx, node, function, if_traced)
            if not blocks:
                continue
            definitions = reaching_definitions(ctx, target)
            if not definitions or any(d.kind != "assign" or ctx.function_of(d.node) is not function
                                      or container_made_by(ctx, d.value) is None for d in definitions):
                continue
            if verb == "store" and not all(_adds_key(d.value, node) for d in definitions):
                continue
            block = next((b for b in blocks if not any(_inside(d.node, b) for d in definitions)), None)
            if block is None:
                continue  # built inside every block around the change
            kind = container_made_by(ctx, definitions[0].value).kind
            changes.setdefault((id(block), target.id), []).append((node, verb, block, kind))
        for (_, name), sites in changes.items():
            if {"grow", "store"} & {verb for _, verb, _, _ in sites} and "shrink" in {verb for _, verb, _, _ in sites}:
                continue  # grown and shrunk in the same block: it may come out the same shape
            node, _, block, kind = sites[0]
            yield Report(node, f"`{ast.unparse(node)[:60]}` changes how many items Python {kind} `{name}` holds inside the "
                               f"run-time `{_block_word(block)}` at line {block.lineno}, and `{name}` is carried through it: a "
                               f"traced block must leave a Python container the same shape on every path (the kernel "
                               f"does not compile); change it only in `cutlass.const_expr` / `range_constexpr` code, or "
                               f"keep run-time values in a register tensor")


def _container_change(node: ast.AST) -> tuple[ast.Name | None, str]:
    """The container name a statement or call resizes and whether it grows or shrinks it:
    ``xs.append(v)``, ``d.pop(k)``, ``xs += [v]``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        if node.func.attr in GROWING_METHODS:
            return node.func.value, "grow"
        if node.func.attr in SHRINKING_METHODS:
            return node.func.value, "shrink"
    if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)
            and isinstance(node.targets[0].value, ast.Name) and isinstance(node.targets[0].slice, ast.Constant)):
        return node.targets[0].value, "store"  # a new key grows a dict (see _adds_key)
    if (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name)
            and isinstance(node.value, (ast.List, ast.ListComp))):
        return node.target, "grow"
    return None, ""


def _adds_key(built: ast.expr, store: ast.Assign) -> bool:
    """``d["k"] = v`` on a dict display whose literal keys do not include ``"k"``: the dict gains
    a key. Anything else (a list item, a key it has, keys not all literal) keeps the shape."""
    if not isinstance(built, ast.Dict) or any(k is None or not isinstance(k, ast.Constant) for k in built.keys):
        return False
    key = store.targets[0].slice.value
    return key not in {k.value for k in built.keys}


def _inside(node: ast.AST, block: ast.AST) -> bool:
    return any(a is block for a in ancestors(node))
