"""KL147 launch-without-device-guard: a Triton launch on a caller's tensors with no
``torch.cuda.device(x.device)`` around it, in a file that guards its other launches."""
from __future__ import annotations

import ast

from kernelint.checkers.triton.helpers import short
from kernelint.findings import Severity
from kernelint.model.project import device_guards
from kernelint.model.api_versions import vendor_fork
from kernelint.rules import Because, Report, Rule


class LaunchWithoutDeviceGuard(Rule):
    code = "KL147"
    name = "launch-without-device-guard"
    family = "triton-launch"
    dsl = "triton"
    # Not measured: the pair needs two GPUs and only single-GPU machines were lent (issue 23).
    severity = Severity.INFO
    default_enabled = False
    evidence_class = "crash"
    summary = ("A Triton launch on tensors its caller passed, with no `torch.cuda.device(x.device)` "
               "around it, in a file that guards its other launches.")
    wants_finish = True
    doc = """
## What it does
Flags a Triton launch (`kernel[grid](...)`) that passes a tensor its function was given (a
parameter, or a view, copy or `*_like` of one) when no device guard is around it: no
`with torch.cuda.device(x.device):` (or `torch.cuda.device_of`, `torch.cuda.stream`,
`torch.accelerator.device_index`, a device module's `.device(...)` such as FlagGems'
`torch_device_fn.device(x.device)`, or a project helper that returns or enters one, such as
Liger-Kernel's `device_context` or fla's `custom_device_ctx`), no `torch.cuda.set_device(...)`
earlier in the function, no decorator that sets the device (fla's `@input_guard`), in the
function or in any caller the project shows (three frames up; a `torch.autograd.Function`'s
`forward` is followed to its `.apply` calls).

It reports only in a file that guards at least one of its own Triton launches that way: the
authors expect tensors on any GPU there, and a launch they left out is the
"we need to make this fix for other kernels as well" of Liger-Kernel PR #1304. A file with no
guard at all is not reported (most such code runs one GPU per process, set once by
`torch.cuda.set_device(local_rank)` in a launcher the analyzer cannot see).

It stays silent when the launch's tensors are made in the function on the default device
(`torch.empty(n, device="cuda")`), when every caller makes the tensors it passes (a test, a
benchmark: single-device code), in the `backward` of a `torch.autograd.Function` and what it
calls (PyTorch's autograd engine runs a CUDA node's backward on a worker thread of that node's
device, which made the device current: `Engine::thread_init` calls `set_device`; read, not run on
two GPUs), when any enclosing `with` reads a tensor's `.device` (a guard it cannot name), under
`@torch.library.custom_op`, `triton_op` or `impl` (whether the dispatcher sets the device around
a Python kernel was not checked), and in vendor backends (FlagGems' `runtime/backend/_<vendor>`,
Ascend, MLU, XPU forks). `with torch.device(x.device):` is not a guard: it only sets the default device of
tensor factories (torch's `DeviceContext`), never the current CUDA device.

## Why is this bad?
Triton launches on the current device (`torch.cuda.current_device()`), not on the device of the
tensors it is given. In Triton 3.6 `JITFunction.run` starts with
`device = driver.active.get_current_device()` and the current stream of that device, and the
launcher checks each pointer with `cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_POINTER)`
in the current context: a tensor on another GPU fails with `ValueError: Pointer argument (at 0)
cannot be accessed from Triton (cpu tensor?)` (triton #2441, #2925, #5205; KIVI #24; torchtitan
#1225; Liger-Kernel #401, #593, #1303 under Hugging Face `device_map="auto"`). Where peer access
between the two GPUs is enabled the check passes instead, and the kernel runs on the current GPU
reading the other one's memory, on a stream not ordered after the work that wrote it.

Read for this rule: Triton 3.6.0 (the wheel: `runtime/jit.py` `JITFunction.run`, and the
pointer check in the launcher source `backends/nvidia/driver.py` generates) and 3.9.0 (installed
here: the same `run`, the check moved to `backends/nvidia/driver.c`). The 2.x releases were not
read; the threads show the same failure on 2.1.0 (#2925) and on 3.x (#5205's traceback through
`jit.py`'s `kernel.run`). Triton 1.0 appears to have taken the device from a tensor argument
(triton #174's traceback ends in `torch.cuda.set_device(device.index)` in `code_gen.py`'s
`Kernel.__call__`, with "Expected a torch.device with a specified index" for a CPU tensor);
`code_gen.py` as stored at triton-lang/triton commit 020c209 (1.x) asks
`torch.cuda.current_device()` instead. An open pull request (triton #9707) would add a `device=`
launch parameter.

## Example
```python
def rms_norm(x, weight, eps=1e-6):
    y = torch.empty_like(x)
    _rms_norm_kernel[(x.shape[0],)](x, weight, y, x.shape[1], eps, BLOCK=1024)
    return y

def layer_norm(x, weight, bias, eps=1e-6):
    y = torch.empty_like(x)
    with torch.cuda.device(x.device):
        _layer_norm_kernel[(x.shape[0],)](x, weight, bias, y, x.shape[1], eps, BLOCK=1024)
    return y
```

## Use instead
```python
def rms_norm(x, weight, eps=1e-6):
    y = torch.empty_like(x)
    with torch.cuda.device(x.device):
        _rms_norm_kernel[(x.shape[0],)](x, weight, y, x.shape[1], eps, BLOCK=1024)
    return y
```

## Measured
Not measured: the pair (`reference_kernels/triton/KL147_launch_without_device_guard/`) needs two
GPUs in one machine, and every device lent to this project so far had one. Its manifest says
`min_gpus = 2`, so `kernelint prove KL147` skips it on one GPU and runs it on two
(`kernel="nvidia-h200-x2"`). Its cases put the tensors on GPU 1 with GPU 0 current and in use;
its controls record the tensors on GPU 0, peer access enabled first, and a process that never
touched GPU 0 (torch then keeps 0 as its current device without making GPU 0's context current,
so where the launch lands is what that case shows). The bad and good kernels were checked on the
CPU under `TRITON_INTERPRET=1` (both exact). The rule is info and off by default until the
two-GPU run, one call on a two-GPU machine (`nvidia-h200-x2`, torch and Triton are there):
`python3 -m pip install -q --no-deps --no-build-isolation . && python3 -m kernelint prove KL147
--json "$OUT/kl147.json" --evidence-dir "$OUT/evidence" > "$OUT/kl147.log" 2>&1`; the record then
goes to `reference_kernels/evidence/` and the JSON and log to `reference_kernels/evidence/runs/`.

Over the corpus (`benchmarks/kl147_census.py`): 1,764 Triton launches in 665 files (853 of them in
vendor-backend files, skipped); 309 launches sit under a device guard in their own function; 73
files with two or more launches guard at least one, holding 276 launches; 11 findings, 10 true
(FlagGems `cumsum` row scan, `masked_select` small path and `cross_entropy_loss`'s
`sum_and_scale`, launched beside guarded launches; Liger-Kernel's fused gate-up SwiGLU forward
next to the launches PR #1304 guarded; mamba `_chunk_scan_fwd`, reached unguarded through
`ChunkScanFn`) and 1 useless (mamba `_chunk_scan_fwd_wip`, never called): 91%.
"""
    references = """
- triton-lang/triton #2441 (a tensor on `cuda:1` "cannot be accessed from Triton"), #2925
  (maintainer: set the device or enable peer access), #5205 (Hugging Face `device_map="auto"`),
  #174 and #310 (Triton 1.x), PR #9707 (a `device=` launch parameter, open).
- jy-yuan/KIVI #24 (the fix: `with torch.cuda.device(data.device):` around the launch).
- pytorch/torchtitan #1225 (multi-GPU generate; `torch.cuda.set_device` per rank).
- linkedin/Liger-Kernel #401, #593, #1303 and PR #1304 (`device_context` around RMSNorm, SwiGLU and
  GeGLU launches; the other kernels left for later).
"""

    def finish(self, ctx):
        if vendor_fork(ctx):
            return
        launches = ctx.launches_of("triton", imported=True)
        if len(launches) < 2:
            return
        view = ctx.project
        guards = device_guards.guards_launches(view, ctx, launches)
        if not guards:
            return
        for launch in launches:
            node = launch.node
            if device_guards.under_operator_registration(ctx, node):
                continue
            function = ctx.function_of(node)
            passed = self._caller_tensor(ctx, function, launch)
            if passed is None:
                continue
            path = device_guards.unguarded_path(view, ctx, node)
            if path is None:
                continue
            argument, parameter = passed
            kernel = launch.kernel.name if launch.kernel is not None else short(launch.kernel_expr)
            first = guards[0]
            yield Report(
                node,
                f"`{kernel}` is launched on `{short(argument)}`{self._origin(argument, parameter)} with no "
                f"`torch.cuda.device({parameter.arg}.device)` around it, while this file guards "
                f"{len(guards)} other launch{'es' if len(guards) > 1 else ''} (line {first.lineno}): Triton "
                f"launches on the current GPU, and a tensor on another GPU fails with 'Pointer argument "
                f"cannot be accessed from Triton'; wrap the launch in `with torch.cuda.device({parameter.arg}.device):`",
                facts=(
                    Because(f"`{short(argument)}` comes from parameter `{parameter.arg}` of "
                            f"`{function.name}`", argument),
                    Because(self._path_text(view, path)),
                    Because(f"this file sets the device around a launch at line {first.lineno}", first),
                ),
            )

    @staticmethod
    def _origin(argument, parameter) -> str:
        if isinstance(argument, ast.Name) and argument.id == parameter.arg:
            return ", a tensor the caller passed,"
        return f" (on the device of the caller's `{parameter.arg}`)"

    @staticmethod
    def _caller_tensor(ctx, function, launch):
        if function is None:
            return None
        for argument in [*launch.args, *launch.keywords.values()]:
            parameter = device_guards.caller_tensor(ctx, function, argument)
            if parameter is not None:
                return argument, parameter
        return None

    @staticmethod
    def _path_text(view, path) -> str:
        if not path:
            return "no device guard in the function, and no caller in the project (an entry point)"
        shown = ", ".join(view.where(node) if ctx is view.ctx else f"{view.display_path(ctx.path)}:{node.lineno}"
                          for node, ctx in path[:3])
        return f"no device guard in the function nor on the call path {shown}"
