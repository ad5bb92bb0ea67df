"""KL311 jit-call-in-loop: a `@cute.jit` function called, or `cute.compile` run, in every
iteration of a host loop."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.dsl.cute import COMPILE, JIT_DECORATOR
from kernelint.model.cute.host import caller_tensor, memoized, result_called, result_kept, test_only
from kernelint.model.cute.static import changes_per_iteration, cute_function, traced_functions
from kernelint.rules import Report, Rule


def _stored_in_cache(ctx, call: ast.Call) -> bool:
    """The compiled function goes into a dict or an attribute (``cache[key] = cute.compile(...)``,
    ``self._fn = cute.compile(...)``): compiled once per key, not once per iteration."""
    statement = ctx.statement_of(call)
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return any(isinstance(t, (ast.Subscript, ast.Attribute)) for t in targets)
    return False


def _sweeps_configurations(ctx, loop: ast.AST) -> bool:
    """``loop`` walks through configurations rather than data: it iterates a literal list of
    constants (``for page_size in (16, 32, 64)``), or its variable sizes a tensor it allocates
    (``torch.randn(M, N)``). Each iteration then needs its own compile anyway."""
    iterable = getattr(loop, "iter", None)
    if isinstance(iterable, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) for e in iterable.elts):
        return True
    target = getattr(loop, "target", None)
    if target is None:
        return False
    names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    for node in ast.walk(loop):
        if isinstance(node, ast.Call) and (ctx.call_name(node) or "").startswith("torch."):
            if any(isinstance(n, ast.Name) and n.id in names for a in node.args for n in ast.walk(a)):
                return True
    return False


def _host_jit_function(ctx, call: ast.Call):
    """The ``@cute.jit`` function of this file that a host call calls directly, or None."""
    for function in ctx.local_functions_called(call):
        kernel = cute_function(ctx, function)
        if kernel is not None and JIT_DECORATOR in kernel.decorators:
            return function
    return None


class JitCallInLoop(Rule):
    code = "KL311"
    name = "jit-call-in-loop"
    family = "cute-host"
    dsl = "cute"
    severity = Severity.WARNING
    evidence_class = "perf"
    summary = "A `@cute.jit` function called directly, or `cute.compile` run, in every iteration of a host loop."
    wants_finish = True
    doc = """
## What it does
Reports, in host code (outside `@cute.jit` / `@cute.kernel` functions and the helpers of the
file they call while tracing; closures, such as a decorator's wrapper, are left out because
when they run is not known), a call inside a `for`
or `while` loop to a `@cute.jit` function of the same file, and a `cute.compile(...)` inside a
loop that compiles the same thing on every iteration: none of its arguments changes in the
loop, and its result is not stored into a dict or an attribute (a cache). Calls of one jit
function from another are traced into it, not dispatched, and are not reported. Loops that
sweep configurations, over a literal list of constants or allocating tensors sized by the loop
variable (benchmarks and tests over shapes), need one compile per iteration and are not
reported either.

It also reports a `cute.compile(...)` outside any loop that compiles on every call of its
function, a per-request path (flashinfer PR #2561: `compiled = cute.compile(fa2_fwd, q_cute, ...)`
then `compiled(q_cute, ...)` in the attention entry point, under a comment that wrongly says it
is "cached after first call"): the function launches what it compiled, keeps nothing (the
result is not stored into a dict or an attribute, returned, captured by a closure, handed to
another call or bound to a global), is not memoized (`@functools.lru_cache`, a `cache`-named
decorator), and compiles for a tensor its caller passes in (a parameter wrapped by
`from_dlpack(...)`, or annotated `torch.Tensor`). It stays silent where the function compiles for
fake tensors (`make_fake_compact_tensor`, the TVM-FFI ahead-of-time form), for tensors it
allocates itself (`torch.randn(M, N)`: an example or a benchmark), launches the result in a loop
(one compile for many launches), or is a test or a helper that only tests call. A direct call of
a `@cute.jit` function outside a loop is not reported: most such calls in real code are device
helpers traced from other files, which the file alone cannot tell from host calls.

## Why is this bad?
Calling a `@cute.jit` function from Python goes through CuTe DSL's JIT entry each time: the
arguments are inspected, a cache key is built and looked up (and on a miss the function is
traced and compiled) before the kernel is launched. `cute.compile` returns a compiled function
whose call goes straight to the launch, so a loop that launches many times should compile once
(per shape) and call the result. `cute.compile` itself, run on every iteration, compiles every
time: cutlass issues #2339 and #2643 report about 13 ms per compile against about 5 µs for a
cached call. Measured on the H200 (nvidia-cutlass-dsl 4.8.1): calling the `@cute.jit` function
directly took 8-12 ms per call, the compiled function 44-49 µs (launch and `from_dlpack`
included): a median of 206 times faster (176-244x over four loop sizes of 16 to 256 calls, up
to 1 GiB moved; a 2-call control case agrees; the run before measured 336x, 223-456x, with the
compiled call at 22-44 µs). A per-call `cute.compile` costs a whole compile
on every call: measured without a GPU (nvidia-cutlass-dsl 4.8.1, x86-64 CPU, the pair's one-line
kernel), 222 ms per call (190-272 ms over 20 calls) against 10 µs for a cached lookup after the
first compile (`benchmarks/kl311_per_call_compile/compile_cost.py`); flashinfer #1519 reports about
1 s per GEMM call for the same form and fixed it with a cache (PR #1521), and flashinfer #4317
15-40 s per shape for larger kernels.

## Example
```python
for i in range(num_chunks):
    scale(from_dlpack(x[i]), from_dlpack(out[i]))
```

## Use instead
```python
compiled = cute.compile(scale, from_dlpack(x[0]), from_dlpack(out[0]))
for i in range(num_chunks):
    compiled(from_dlpack(x[i]), from_dlpack(out[i]))
```
"""
    references = """
- cutlass issues #2339 and #2643 (compile cost per call); CuTe DSL docs, 'JIT caching' (`cute.compile`).
- flashinfer PR #2561 (review: `cute.compile` in the attention entry point on every call), issue #1519
  (about 1 s of host time per GEMM call, fixed with a compile cache in PR #1521) and issue #4317
  (`cute.compile` never caches: 15-40 s per kernel shape); issue 23 item 14.
- Per-call compile cost measured without a GPU:
  `reference_kernels/evidence/runs/KL311-per-call-compile/2026-12-01-cpu-compile-cost.json`.
"""

    def finish(self, ctx):
        jit_names = {"." + k.node.name for k in ctx.kernels_of("cute") if JIT_DECORATOR in k.decorators}
        for call in ctx.calls_to(frozenset({COMPILE, *jit_names})):  # the only calls it can report
            yield from self._check_call(call, ctx)

    def _check_call(self, node: ast.Call, ctx):
        compiles = ctx.call_name(node) == COMPILE
        jit_function = None if compiles else _host_jit_function(ctx, node)
        if not compiles and jit_function is None:
            return  # most calls: neither a compile nor a call of this file's jit function
        loops = ctx.loops_of(node)
        function = ctx.function_of(node)
        if function is not None and id(function) in traced_functions(ctx):
            return  # inside traced code a call of a jit function is inlined, not dispatched
        if function is not None and ctx.function_of(function) is not None:
            return  # a closure (a decorator's wrapper): who calls it, and when, is not known here
        if not loops:
            if function is not None and compiles:
                yield from self._compile_per_call(ctx, node, function)
            return
        if compiles:
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if not _stored_in_cache(ctx, node) and not any(changes_per_iteration(loops[0], a) for a in arguments):
                yield Report(
                    node,
                    "`cute.compile(...)` in a loop compiles on every iteration; compile once before "
                    "the loop (or cache the result per shape) and call the compiled function",
                )
            return
        if not _sweeps_configurations(ctx, loops[0]):
            yield Report(
                node,
                f"`@cute.jit` function `{jit_function.name}` called directly in a loop; every call goes "
                "through the JIT entry: compile it once with `cute.compile` and call the result",
            )

    @staticmethod
    def _compile_per_call(ctx, call: ast.Call, function):
        """``cute.compile`` in a function that launches what it compiled, keeps nothing and is
        not memoized, compiling for tensors its caller passes in: every call compiles again."""
        if test_only(ctx, function) or memoized(ctx, function):
            return
        if result_kept(ctx, call) or not result_called(ctx, call, outside_loops=True):
            return
        arguments = [*call.args[1:], *(k.value for k in call.keywords if k.arg != "options")]
        tensor = next((t for t in (caller_tensor(ctx, function, a) for a in arguments) if t is not None), None)
        if tensor is None:
            return
        yield Report(
            call,
            f"`cute.compile(...)` runs on every call of `{function.name}`: it compiles for `{tensor}`, which the "
            "caller passes in, launches the result and keeps nothing, so each call pays a full compile; keep the "
            "compiled function in a cache keyed by shape and dtype",
        )
