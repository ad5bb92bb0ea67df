"""KL118 constexpr-from-runtime-size: A `tl.constexpr` parameter is fed a size that changes from
call to call, so Triton compiles the kernel again for every new value."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.grouping import project_cause
from kernelint.model.core.calls import argument
from kernelint.model.dsl import triton
from kernelint.model.project.per_call_sizes import per_call_size
from kernelint.rules import Report, Rule


class ConstexprFromRuntimeSize(Rule):
    code = "KL118"
    name = "constexpr-from-runtime-size"
    family = "triton-compile"
    dsl = "triton"
    severity = Severity.WARNING
    # 88% of 210 findings on the corpus were sizes that really change per call; the rest were
    # leading dimensions of weights and tables, which the source does not tell apart: off by default.
    default_enabled = False
    evidence_class = "perf"
    summary = "A `tl.constexpr` is fed a per-call size (token count, numel): one compilation per new value."
    wants_finish = True
    doc = """
## What it does
Flags a launch argument for a `tl.constexpr` parameter whose value comes from a size that changes
between calls: a tensor's leading dimension (`x.shape[0]`, `x.size(0)`, the first name unpacked
from `x.shape`) or its element count (`x.numel()`), directly or through host arithmetic
(`triton.cdiv(n_tokens, 64)`). Also flags `@triton.jit(do_not_specialize=[...])` entries that
name a `tl.constexpr` parameter: a constexpr is always specialised, so the request is ignored.

Silent for values bucketed with `triton.next_power_of_2(...)`, clamped with `min`/`max`, or
turned into a flag by a comparison (`n % BLOCK == 0`), and for trailing dimensions (head size,
hidden size), which are fixed for a model.

The kernel's parameter is the cause: its launches that feed it a per-call size, in one module or
several, are one finding (`kernelint check`), the other launches its related sites.

## Why is this bad?
Triton compiles one binary per distinct tuple of constexpr values. A batch size or a sequence
length passed as a constexpr gives every new length its own compilation, which takes a large
fraction of a second to seconds of CPU time while the GPU waits. The pair
measured about 89-124 ms of compilation per new token count for a small reduction kernel on the
H200 (Triton 3.6), against 0.008-0.21 ms per call once compiled: 420-12,000x per call in a loop
where every request brings a new length. Larger kernels compile for longer. With
variable-length training
batches or serving traffic the kernel keeps compiling: users saw the JIT run on every training
step (Liger-Kernel #146: RoPE with the sequence length as a constexpr), prefill spikes dominated by
compilation (sglang #40371), and kernels that only ever hit the cache after a warm-up of every
length.

## Example
```python
@triton.jit
def column_sum(x_ptr, out_ptr, n_tokens: tl.constexpr, D: tl.constexpr, BLOCK_T: tl.constexpr):
    ...

column_sum[(1,)](x, out, x.shape[0], x.shape[1], BLOCK_T=64)
```

## Use instead
```python
@triton.jit
def column_sum(x_ptr, out_ptr, n_tokens, D: tl.constexpr, BLOCK_T: tl.constexpr):
    ...
```
or pass a bucketed bound (`triton.next_power_of_2(n_tokens)`) when the kernel needs it at compile
time.
"""
    references = """
- linkedin/Liger-Kernel#146 (RoPE JIT-compiled on every step with variable sequence lengths),
  sgl-project/sglang#40371 (a sequence length declared `tl.constexpr` recompiled per prompt
  length), fla-org/flash-linear-attention#1207 (per-length parameters moved to
  `do_not_specialize`), triton-lang/triton#4781 and unslothai/unsloth#20 (first call per new
  shape is slow).
"""

    def finish(self, ctx):
        for kernel in ctx.kernels:
            if kernel.dsl == "triton":
                yield from self._ignored_do_not_specialize(ctx, kernel)
        for launch in ctx.launches_of("triton", imported=True):
            kernel_ctx = launch.kernel_ctx or ctx
            constexprs = launch.kernel.constexpr_names(kernel_ctx.qualname) - launch.kernel.tuned_names()
            for name, value in launch.bound_arguments().items():
                if name not in constexprs:
                    continue
                source = per_call_size(ctx, value)
                if source is not None:
                    yield Report(
                        value,
                        f"`{name}` of `{launch.kernel.name}` is a `tl.constexpr` fed from the runtime size "
                        f"`{ast.unparse(source)}`: Triton compiles the kernel again for every new value; "
                        "make it a plain argument or bucket it with `triton.next_power_of_2`",
                        # The kernel's parameter is the cause: its launches in every module are one finding.
                        cause=project_cause(f"{ctx.project.display_path(kernel_ctx.path)}:{launch.kernel.name}", name),
                    )

    @staticmethod
    def _ignored_do_not_specialize(ctx, kernel):
        constexprs = kernel.constexpr_names(ctx.qualname)
        names = [a.arg for a in kernel.params]
        for decorator in kernel.node.decorator_list:
            if not (isinstance(decorator, ast.Call) and ctx.qualname(decorator.func) == triton.JIT):
                continue
            listed = argument(decorator, "do_not_specialize")
            if not isinstance(listed, (ast.List, ast.Tuple)):
                continue
            for entry in listed.elts:
                if not isinstance(entry, ast.Constant):
                    continue
                value = entry.value
                name = names[value] if isinstance(value, int) and 0 <= value < len(names) else value
                if name in constexprs:
                    yield Report(
                        entry,
                        f"`{name}` is a `tl.constexpr` of `{kernel.name}`: `do_not_specialize` does not apply "
                        "to constexprs, so every new value still compiles the kernel again",
                    )
