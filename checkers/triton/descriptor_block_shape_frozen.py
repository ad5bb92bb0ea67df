"""KL119 descriptor-block-shape-frozen: A host tensor descriptor's block shape is fixed before an
autotuned kernel whose configs change the tile it loads."""
from __future__ import annotations

import ast

from kernelint.findings import Severity
from kernelint.model.core import dataflow
from kernelint.model.triton import autotune
from kernelint.model.core.calls import argument
from kernelint.model.dsl import triton
from kernelint.rules import Report, Rule

_FROM_TENSOR = triton.HOST_TENSOR_DESCRIPTOR + ".from_tensor"
_DESCRIPTOR_METHODS = ("load", "store", "atomic_add", "atomic_max", "atomic_min", "gather", "scatter")


class DescriptorBlockShapeFrozen(Rule):
    code = "KL119"
    name = "descriptor-block-shape-frozen"
    family = "triton-autotune"
    dsl = "triton"
    severity = Severity.ERROR
    evidence_class = "numerics"
    summary = ("A host `TensorDescriptor`'s block shape is fixed before launching an autotuned kernel "
               "whose configs change the tile size.")
    wants_finish = True
    doc = """
## What it does
Flags the `block_shape` of a host `TensorDescriptor` (`TensorDescriptor(t, shape, strides,
block_shape)` or `TensorDescriptor.from_tensor(t, block_shape)`) passed to an `@triton.autotune`
kernel whose configs set a meta-parameter that the kernel uses in the offsets of that
descriptor's `load`/`store` (`desc.load([pid_m * BLOCK_M, k])`, with configs varying `BLOCK_M`).

Silent when a `triton.Config` or the autotune has a `pre_hook` (the documented way to set
`nargs["desc"].block_shape` from the chosen config), when the configs set none of the names used
in the descriptor's offsets, and when the descriptor is not built in the launching function's file.

## Why is this bad?
A host descriptor carries its block shape: every `desc.load` returns a tile of exactly that shape,
whatever `BLOCK_M` the autotuner picked. When a config's tile differs, the kernel steps through
the tensor by `BLOCK_M` rows but reads and writes `block_shape[0]` rows per step: with a smaller
block, rows between tiles are never touched; with a larger one, tiles overlap; where the tile
meets a `tl.dot` or a store of `BLOCK_M` rows, the shapes do not match and the config fails to
compile. The autotuner benchmarks all of these, and may pick one that is fast because it skips
work.

## Example
```python
x_desc = TensorDescriptor.from_tensor(x, [64, 64])
scale_rows[lambda META: (triton.cdiv(M, META["BLOCK_M"]),)](x_desc, y_desc, M)
# configs: BLOCK_M in (128, 256); the kernel loads x_desc at [pid * BLOCK_M, 0]
```

## Use instead
```python
def set_block(nargs):
    nargs["x_desc"].block_shape = [nargs["BLOCK_M"], 64]

configs = [triton.Config({"BLOCK_M": bm}, pre_hook=set_block) for bm in (128, 256)]
x_desc = TensorDescriptor.from_tensor(x, [1, 1])  # the pre_hook sets the real block shape
```
"""
    references = """
- flagos-ai/FlagGems#4308: host descriptors of the Hopper TMA `mm` whose `block_shape` the
  autotuner's pre-hook did not synchronise failed with `accumulator shape is incompatible` (the
  fix sets the block shapes from the active `BLOCK_M/N/K` before the launch);
  triton-lang/triton#11587: a descriptor block and the loaded tile with different element counts.
- Triton tutorial 09 (persistent matmul): host descriptors under autotune get their block shape
  from a `Config` `pre_hook` (`matmul_tma_set_block_size_hook`); Liger-Kernel's `ops/mlp.py`
  follows the same pattern.
"""

    def finish(self, ctx):
        for launch in ctx.launches_of("triton"):
            kernel = launch.kernel
            tuner = kernel.autotune
            if tuner is None or not tuner.config_keys:
                continue
            if autotune.replaces_hooks(tuner.node) or autotune.configs_set_pre_hook(ctx, tuner.node):
                continue
            for name, value in launch.bound_arguments().items():
                block_shape = self._host_block_shape(ctx, value)
                if block_shape is None:
                    continue
                tuned = self._tuned_offsets(ctx, kernel, name, tuner.config_keys)
                if tuned:
                    yield Report(
                        block_shape,
                        f"the block shape of `{name}` is fixed here (`{ast.unparse(block_shape)}`), but the "
                        f"autotune configs of `{kernel.name}` vary `{'`, `'.join(sorted(tuned))}`, which its "
                        f"`{name}` accesses step by: set `nargs['{name}'].block_shape` in a config `pre_hook`",
                    )

    @staticmethod
    def _host_block_shape(ctx, value):
        """The ``block_shape`` argument of the host descriptor ``value`` holds, if one."""
        values = list(ctx.values_of(value))
        if len(values) != 1 or not isinstance(values[0], ast.Call):
            return None
        call, name = values[0], ctx.call_name(values[0])
        if name == triton.HOST_TENSOR_DESCRIPTOR:
            return argument(call, "block_shape", 3)
        if name == _FROM_TENSOR:
            return argument(call, "block_shape", 1)
        return None

    @staticmethod
    def _tuned_offsets(ctx, kernel, parameter, config_keys):
        """Config keys the offsets of ``parameter``'s descriptor accesses are computed from."""
        found: set[str] = set()
        for call in ctx.nodes(ast.Call):
            func = call.func
            if not (isinstance(func, ast.Attribute) and func.attr in _DESCRIPTOR_METHODS and call.args
                    and isinstance(func.value, ast.Name) and func.value.id == parameter):
                continue
            if ctx.kernel_of(call, "triton") is not kernel:
                continue

            def match(node):
                if isinstance(node, ast.Name) and node.id in config_keys:
                    found.add(node.id)
                return False

            dataflow.reaches(ctx, call.args[0], match)
        return found
