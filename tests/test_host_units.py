"""Which host units a kernel's kept findings depend on (``kernelint/host_units.py``): each way a
host value reaches a kernel's analysis, as a pair of texts, where the edit must change the
kernel's key (``# ruleid``-style: ``reads``) or must not (``# ok``-style: ``ignores``)."""
from __future__ import annotations

import ast
import textwrap

import pytest

from kernelint.model.kernels import Kernel
from kernelint.reuse import KernelKeys

KERNELS = '''
import torch
import triton
import triton.language as tl

SCALE = 2.0
OTHER = 3.0


@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)


@triton.jit
def other_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * OTHER, mask=offs < n)

'''


def _keys(source: str) -> dict[str, object]:
    tree = ast.parse(source)
    kernels = [Kernel(node, "triton", ["triton.jit"]) for node in ast.walk(tree)
               if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list)]
    keys = KernelKeys(source, tree, kernels, None)
    return {k.name: (keys.of(k), keys.of(k, lines=False)) for k in kernels}


def _reads(host: str, old: str, new: str, kernel: str = "scale_kernel") -> bool:
    """Whether ``kernel``'s keys change when ``old`` becomes ``new`` in ``host``."""
    source = KERNELS + textwrap.dedent(host)
    assert source.count(old) == 1, old
    return _keys(source)[kernel] != _keys(source.replace(old, new))[kernel]


FORMS = {
    "the launcher": ('''
        def scale(x):
            n = x.numel()
            scale_kernel[(triton.cdiv(n, 256),)](x, n, BLOCK=256)
        ''', "n = x.numel()", "n = x.shape[0]"),
    "a caller of the launcher": ('''
        def scale(x, n):
            scale_kernel[(triton.cdiv(n, 256),)](x, n, BLOCK=256)


        def op(x):
            return scale(x, x.numel())
        ''', "x.numel())", "x.shape[0])"),
    "a helper the launcher takes a size from": ('''
        def rows_of(x):
            return x.shape[0]


        def scale(x):
            n = rows_of(x)
            scale_kernel[(n,)](x, n, BLOCK=256)
        ''', "return x.shape[0]", "return x.numel()"),
    "a module constant the kernel reads": ('''
        SCALE = 4.0
        ''', "SCALE = 4.0", "SCALE = 5.0"),
    "a module alias of the kernel": ('''
        fast = scale_kernel


        def run(x, n):
            fast[(n,)](x, n, BLOCK=256)
        ''', "fast[(n,)](x, n", "fast[(n,)](x, 2 * n"),
    "a function that returns the kernel": ('''
        def pick(mode):
            return scale_kernel


        def run(x, n):
            pick("a")[(n,)](x, n, BLOCK=256)
        ''', "(x, n, BLOCK", "(x, 2 * n, BLOCK"),
    "a function that returns the kernel through a local": ('''
        def pick(mode):
            chosen = scale_kernel if mode else None
            return chosen


        def run(x, n):
            fn = pick("a")
            fn[(n,)](x, n, BLOCK=256)
        ''', "(x, n, BLOCK", "(x, 2 * n, BLOCK"),
    "an attribute set in __init__": ('''
        class Op:
            def __init__(self):
                self.fn = scale_kernel

            def forward(self, x, n):
                self.fn[(n,)](x, n, BLOCK=256)
        ''', "(x, n, BLOCK", "(x, 2 * n, BLOCK"),
    "an attribute set from a local in another class": ('''
        class Table:
            def __init__(self):
                chosen = scale_kernel
                self.entries = [chosen]


        def run(table, x, n):
            table.entries[0][(n,)](x, n, BLOCK=256)
        ''', "(x, n, BLOCK", "(x, 2 * n, BLOCK"),
    "a module table filled in a function": ('''
        TABLE = {}


        def register():
            TABLE["scale"] = scale_kernel


        def run(x, n):
            TABLE["scale"][(n,)](x, n, BLOCK=256)
        ''', "(x, n, BLOCK", "(x, 2 * n, BLOCK"),
    "a list appended to": ('''
        ALL = []
        ALL.append(scale_kernel)


        def run(x, n):
            for fn in ALL:
                fn[(n,)](x, n, BLOCK=256)
        ''', "(x, n, BLOCK", "(x, 2 * n, BLOCK"),
    "a class attribute": ('''
        class Ops:
            fwd = scale_kernel


        def run(x, n):
            Ops.fwd[(n,)](x, n, BLOCK=256)
        ''', "(x, n, BLOCK", "(x, 2 * n, BLOCK"),
    "the kernel passed to a launching helper": ('''
        def launch(kern, x, n):
            kern[(n,)](x, n, BLOCK=256)


        def run(x):
            launch(scale_kernel, x, x.numel())
        ''', "kern[(n,)](x, n,", "kern[(n,)](x, 2 * n,"),
    "a module name rebound through global": ('''
        def configure(value):
            global SCALE
            SCALE = value
        ''', "SCALE = value", "SCALE = 2 * value"),
    "a star import": ('''
        from .constants import *
        ''', "from .constants import *", "from .other_constants import *"),
    "configs built by a module loop": ('''
        configs = []
        for block in (64, 128):
            configs.append(triton.Config({"BLOCK": block}))
        ''', "(64, 128)", "(64, 256)", "tuned_kernel"),
    "the forward of an autograd Function, through apply": ('''
        class ScaleFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                n = x.numel()
                scale_kernel[(n,)](x, n, BLOCK=256)
                return x


        def scale(x):
            return ScaleFn.apply(x.contiguous())
        ''', "x.contiguous()", "x.t()"),
    "a later definition of the kernel's name": ('''
        def run(x, n):
            scale_kernel[(n,)](x, n, BLOCK=256)


        placeholder = None
        ''', "placeholder = None", "scale_kernel = None"),
    "the import of a name the kernel spells": ('''
        def scale(x, n):
            scale_kernel[(n,)](x, n, BLOCK=256)
        ''', "import triton.language as tl", "from triton import language as tl"),
    "the import of a name the launcher spells": ('''
        from torch import float32


        def scale(x, n):
            scale_kernel[(n,)](x.to(float32), n, BLOCK=256)
        ''', "from torch import float32", "from numpy import float32"),
    "an alias of an alias, each set in a function found before it hands anything on": ('''
        def chain():
            global SECOND
            SECOND = FIRST


        def register():
            global FIRST
            FIRST = scale_kernel
            chain()


        def run(x, n):
            SECOND[(n,)](x, n, BLOCK=256)
        ''', "(x, n, BLOCK", "(x, 2 * n, BLOCK"),
    "a caller of a helper whose parameter is followed to every caller": ('''
        def rows(x):
            return x.shape[0]


        def scale(x):
            scale_kernel[(rows(x),)](x, rows(x), BLOCK=256)


        def elsewhere(y):
            return rows(y[0])
        ''', "rows(y[0])", "rows(y[1:])"),
}

TUNED = '''

@triton.autotune(configs=configs, key=["n"])
@triton.jit
def tuned_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)
'''


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_host_value_that_reaches_the_kernel_is_read(form):
    host, old, new, *kernel = FORMS[form]
    if kernel:
        host = textwrap.dedent(host) + TUNED
    assert _reads(host, old, new, *kernel), form


IGNORED = {
    "a launcher of another kernel": ('''
        def scale(x):
            n = x.numel()
            scale_kernel[(n,)](x, n, BLOCK=256)


        def other(x):
            n = x.numel()
            other_kernel[(n,)](x, n, BLOCK=256)
        ''', "    n = x.numel()\n    other", "    n = x.shape[0]\n    other"),
    "a module constant only another kernel reads": ('''
        def scale(x, n):
            scale_kernel[(n,)](x, n, BLOCK=256)
        ''', "OTHER = 3.0", "OTHER = 4.0"),
    "a reference function that launches nothing": ('''
        def scale(x, n):
            scale_kernel[(n,)](x, n, BLOCK=256)


        def scale_ref(x):
            return x * 2.0
        ''', "return x * 2.0", "return x * SCALE"),
    "a comment line between functions": ('''
        def scale(x, n):
            scale_kernel[(n,)](x, n, BLOCK=256)

        # helpers
        def unrelated(x):
            return x
        ''', "# helpers", "# helpers below"),
    "a comment that names the kernel's launcher": ('''
        def scale(x, n):
            scale_kernel[(n,)](x, n, BLOCK=256)


        def unrelated(x):
            # unlike scale(), no kernel
            return x
        ''', "return x\n", "return -x\n"),
    "a name added to an import the launcher reads": ('''
        from torch import float32


        def scale(x, n):
            scale_kernel[(n,)](x.to(float32), n, BLOCK=256)
        ''', "from torch import float32", "from torch import float32, float16"),
    "a comment on an import the kernel reads": ('''
        def scale(x, n):
            scale_kernel[(n,)](x, n, BLOCK=256)
        ''', "import triton.language as tl", "import triton.language as tl  # the DSL"),
    "the result of the launcher kept elsewhere": ('''
        def scale(x, n):
            scale_kernel[(n,)](x, n, BLOCK=256)
            return x


        class Model:
            def forward(self, x, n):
                self.out = scale(x, n)


        def report(model):
            return model.out.sum()
        ''', "model.out.sum()", "model.out.mean()"),
}


@pytest.mark.parametrize("form", sorted(IGNORED))
def test_host_code_that_cannot_reach_the_kernel_is_not_read(form):
    host, old, new = IGNORED[form]
    assert not _reads(host, old, new), form


def test_a_line_moved_above_the_kernel_changes_only_the_key_with_lines():
    source = KERNELS.replace("SCALE = 2.0\n", "SCALE = 2.0\n\n# a note\n")
    before, after = _keys(KERNELS)["scale_kernel"], _keys(source)["scale_kernel"]
    assert before[0] != after[0] and before[1] == after[1]
