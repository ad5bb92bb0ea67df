"""KL115 autotune-inplace-without-restore: An autotuned kernel updates a buffer in place, and the
autotuner's benchmark runs update it again and again."""
from __future__ import annotations

from kernelint.findings import Severity
from kernelint.model.triton import autotune, memory
from kernelint.model.dsl import triton
from kernelint.rules import Because, Report, Rule


class AutotuneInplaceWithoutRestore(Rule):
    code = "KL115"
    name = "autotune-inplace-without-restore"
    family = "triton-autotune"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("An autotuned kernel updates a buffer in place without `restore_value`: every config the "
               "autotuner times updates it again.")
    wants_finish = True
    doc = """
## What it does
Flags the store into a buffer that an `@triton.autotune` kernel with two or more configs updates in
place: the value stored is computed from a `tl.load` of the same pointer parameter (`x =
tl.load(x_ptr + offs); tl.store(x_ptr + offs, x * scale)`), where that load comes before the
kernel's first write to the buffer (so it reads the caller's data), or the kernel `tl.atomic_add`s
into it without storing into it first. Block pointers and tensor descriptors built from the
parameter count as the parameter.

Silent when the kernel writes the buffer before it reads it back (a scratch area or a two-pass
update is rewritten from other inputs on every launch), when the parameter is named in
`restore_value=` or `reset_to_zero=`, when the autotune passes its own `pre_hook`/`post_hook` or a
`triton.Config` has a `pre_hook` (these may restore or zero the buffer), when there is a single
config (nothing is benchmarked), and when the number of configs cannot be read (a function builds
them) or the name lists cannot be read.

## Why is this bad?
On the first call for a new tuning key the autotuner launches the kernel many times per config to
time it, on the caller's real tensors, and only then runs the chosen config once more. An in-place
kernel therefore applies its update hundreds of times to the buffer before the call returns:
scaled logits are scaled again and again, a leaky ReLU keeps shrinking the negative values, an
`atomic_add` accumulator holds the sum of every timing run. On the H200 (Triton 3.6) the
pair's two-config axpy applied its update 2,883 times to the caller's buffer on the first call
(`restore_value` brings that back to once). Later calls with the same key skip tuning and are
correct, so the wrong result shows only once per shape, which makes it hard to
trace. `reset_to_zero` is not the fix for a read-modify-write buffer: it zeroes the input before
every run, including the real one.

## Example
```python
@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})],
                 key=["n"])
@triton.jit
def scale_(x_ptr, s, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(x_ptr + offs, x * s, mask=offs < n)
```

## Use instead
```python
@triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})],
                 key=["n"], restore_value=["x_ptr"])
```
Use `reset_to_zero=` for a buffer the kernel only accumulates into with atomics.
"""
    references = """
- triton-lang/triton#6547 (in-place 2D scale gives wrong output under autotune), #5339 (results
  change between runs of an autotuned kernel), #781 and #54 (the first autotuned call clobbers
  in-place inputs), #9230 (configs share one output buffer); PR #2549 added `restore_value`.
- lucidrains/lion-pytorch#36 (optimizer step applied several times while tuning),
  flagos-ai/FlagGems#3753 and #4967 (in-place leaky ReLU applied repeatedly).
"""

    def finish(self, ctx):
        for kernel in ctx.kernels:
            tuner = kernel.autotune
            if kernel.dsl != "triton" or tuner is None:
                continue
            count = autotune.config_count(ctx, tuner.node)
            if count is None or count < 2 or autotune.replaces_hooks(tuner.node):
                continue
            restored = autotune.name_list(ctx, tuner.node, "restore_value")
            zeroed = autotune.name_list(ctx, tuner.node, "reset_to_zero")
            if restored is None or zeroed is None or autotune.configs_set_pre_hook(ctx, tuner.node):
                continue
            protected = {c.value for c in restored + zeroed}
            reported: set[str] = set()
            for access in memory.accesses(ctx, kernel):
                pointers = memory.pointers_among(ctx, kernel, access.parameters)
                if pointers & protected:
                    continue  # the buffer is restored (or the address cannot say which one it is)
                if len(pointers) > 1:
                    found = list(self._ambiguous(ctx, kernel, access, pointers - reported, count))
                    if found:
                        reported |= pointers
                    yield from found
                    continue
                for parameter in sorted(pointers - reported):
                    how = self._in_place(ctx, kernel, access, parameter)
                    if how is None:
                        continue
                    reported.add(parameter)
                    verb, fix = how
                    if ctx.call_name(access.call) is None:  # a host descriptor: restore its tensor
                        fix = "a `pre_hook`/`post_hook` that restores the tensor behind it"
                    else:
                        fix = f"`{fix}=['{parameter}']`"
                    yield Report(
                        access.call,
                        f"`{kernel.name}` {verb} `{parameter}` in place and is autotuned over {count} "
                        f"configs without {fix}: every benchmarked launch updates the caller's buffer again",
                        facts=(Because(f"`{parameter}` is the pointer this address is built on"
                                       + (f" (of {', '.join(sorted(access.parameters))})" if len(access.parameters) > 1 else "")),),
                    )

    def _ambiguous(self, ctx, kernel, access, pointers: frozenset[str], count: int):
        """An in-place update whose address sums several parameters none of which the kernel
        shows to be the pointer: reported once, naming the candidates, with no parameter to put
        in ``restore_value`` (naming an integer there fails when the autotuner clones it)."""
        if not pointers:
            return
        hows = [self._in_place(ctx, kernel, access, p) for p in sorted(pointers)]
        if not any(hows):
            return
        verb, fix = next(h for h in hows if h)
        names = " or ".join(f"`{p}`" for p in sorted(pointers))
        yield Report(
            access.call,
            f"`{kernel.name}` {verb} a buffer in place (its pointer is {names}) and is autotuned over "
            f"{count} configs without `{fix}`: every benchmarked launch updates the caller's buffer "
            f"again; name the pointer parameter in `{fix}`",
            facts=(Because(f"the address sums {names}; nothing in the kernel shows which is the pointer"),),
        )

    @staticmethod
    def _in_place(ctx, kernel, access, parameter):
        if access.atomic == triton.ATOMIC_ADD:
            if memory.written_before(ctx, kernel, parameter, access.call):
                return None  # adds onto what this launch stored first
            return "accumulates into", "reset_to_zero"
        if access.kind == "store" and access.value is not None and memory.computed_from(
            ctx, access.value, memory.caller_data_loads(ctx, kernel, parameter)
        ):
            return "updates", "restore_value"
        return None
