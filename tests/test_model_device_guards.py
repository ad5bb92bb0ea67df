"""model/project/device_guards.py (KL147's facts): which statements run with the device set to
their tensors' device, and which launch arguments are tensors a caller passed."""
from __future__ import annotations

import ast
import textwrap

import pytest

from kernelint.model.context import FileContext
from kernelint.model.project import device_guards


def _context(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("snippet.py", source, ast.parse(source), ())


def _marked(ctx: FileContext) -> ast.Call:
    """The call on the line that carries `# here`."""
    line = next(i for i, text in enumerate(ctx.source.splitlines(), 1) if "# here" in text)
    return next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call) and n.lineno == line
                and isinstance(n.func, ast.Name) and n.func.id == "launch")


HEADER = """
import contextlib
import torch
import flag_gems.runtime as runtime
torch_device_fn = runtime.torch_device_fn
"""


@pytest.mark.parametrize("body, guarded", [
    ("with torch.cuda.device(x.device):\n        launch(x)  # here", True),
    ("with torch.cuda.device(x.device.index):\n        launch(x)  # here", True),
    ("with torch.cuda.device_of(x):\n        launch(x)  # here", True),
    ("with torch.cuda.stream(s):\n        launch(x)  # here", True),
    ("with torch_device_fn.device(x.device):\n        launch(x)  # here", True),
    ("ctx = torch.cuda.device(x.device)\n    with ctx:\n        launch(x)  # here", True),
    ("torch.cuda.set_device(x.device)\n    launch(x)  # here", True),
    ("with my_context(x.device):\n        launch(x)  # here", True),          # unknown, reads a device: quiet
    ("with torch.device(x.device):\n        launch(x)  # here", False),        # factories' default device only
    ("with torch.autograd.no_grad():\n        launch(x)  # here", False),
    ("launch(x)  # here\n    torch.cuda.set_device(x.device)", False),        # set after the launch
    ("launch(x)  # here", False),
])
def test_guard_in_the_function(body, guarded):
    ctx = _context(HEADER + f"def op(x, s):\n    {body}\n")
    assert (device_guards.guard_at(None, ctx, _marked(ctx)) is not None) is guarded


def test_a_contextmanager_helper_and_a_decorator_that_enters_a_guard_count():
    ctx = _context(HEADER + """
@contextlib.contextmanager
def device_context(device):
    with torch.cuda.device(device):
        yield

def input_guard(fn):
    def wrapper(*args):
        with torch.cuda.device(args[0].device.index):
            return fn(*args)
    return wrapper

def helper_launch(x):
    with device_context(x.device):
        launch(x)  # here
""")
    assert device_guards.guard_at(None, ctx, _marked(ctx)) is not None
    decorated = _context(HEADER + """
def input_guard(fn):
    def wrapper(*args):
        with torch.cuda.device(args[0].device.index):
            return fn(*args)
    return wrapper

@input_guard
def op(x):
    launch(x)  # here
""")
    assert device_guards.guard_at(None, decorated, _marked(decorated)) is not None


def test_autograd_backward_is_guarded_and_forward_is_not():
    ctx = _context(HEADER + """
class Op(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        launch(x)
        return x

    @staticmethod
    def backward(ctx, dy):
        launch(dy)  # here
        return dy
""")
    assert isinstance(device_guards.guard_at(None, ctx, _marked(ctx)), ast.FunctionDef)
    forward = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "launch")
    assert device_guards.guard_at(None, ctx, forward) is None


@pytest.mark.parametrize("expression, parameter", [
    ("x", "x"),
    ("x.view(-1, n)", "x"),
    ("x.contiguous().t()", "x"),
    ("torch.empty_like(x)", "x"),
    ("torch.empty(n, device=x.device)", "x"),
    ("torch.empty(n, device=device)", "device"),
    ("y", "x"),                                   # y = x.reshape(...) below
    ("x.shape[0]", None),                         # a size, not a tensor
    ("x.stride(0)", None),
    ("n", None),                                  # annotated int
    ("torch.empty(n, device='cuda')", None),      # made here on the current device
    ("self.weight", None),
])
def test_caller_tensor(expression, parameter):
    ctx = _context(f"""
import torch
class M:
    def op(self, x, n: int, device):
        y = x.reshape(n, -1)
        return {expression}
""")
    function = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.FunctionDef) and n.name == "op")
    value = next(n.value for n in ast.walk(function) if isinstance(n, ast.Return))
    found = device_guards.caller_tensor(ctx, function, value)
    assert (found.arg if found is not None else None) == parameter
