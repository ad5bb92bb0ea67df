"""kernelint/model/cute/blocks.py (run-time blocks of CuTe DSL functions, containers carried
through them, register fragments indexed at run time) and kernelint/model/cute/host.py (what a
host function does with what `cute.compile` returns)."""
from __future__ import annotations

import ast
import textwrap

import pytest

from kernelint.model import FileContext

HEADER = "import functools\nimport torch\nimport cutlass\nimport cutlass.cute as cute\nfrom cutlass.cute.runtime import from_dlpack\n"


def context(body: str) -> tuple[FileContext, ast.Module]:
    source = HEADER + textwrap.dedent(body)
    tree = ast.parse(source)
    return FileContext("snippet.py", source, tree, ()), tree


def marked(tree: ast.Module, name: str) -> ast.AST:
    """The argument of the ``mark(...)`` call whose first argument is the string ``name``."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "mark"
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == name):
            return node.args[1]
    raise AssertionError(name)


@pytest.mark.parametrize("header, dynamic", [
    ("if n > 0:", True),
    ("if cutlass.const_expr(n > 0):", False),
    ("for i in cutlass.range(n):", True),
    ("for i in range(n):", True),
    ("for i in cutlass.range_constexpr(4):", False),
    ("for i in (1, 2):", False),
    ("while n > 0:", True),
])
def test_dynamic_blocks_around(header, dynamic):
    from kernelint.model.cute.blocks import dynamic_blocks_around

    ctx, tree = context(f"""
        @cute.jit
        def f(n: cutlass.Int32):
            {header}
                mark("x", n)
    """)
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert bool(dynamic_blocks_around(ctx, marked(tree, "x"), function)) is dynamic


@pytest.mark.parametrize("bound, runtime", [
    ("n", True), ("n - 1", True), ("width", False), ("8", False), ("cute.size(frag)", False),
])
def test_runtime_trip_count(bound, runtime):
    from kernelint.model.cute.blocks import runtime_trip_count

    ctx, tree = context(f"""
        @cute.kernel
        def k(n: cutlass.Int32, width: cutlass.Constexpr):
            frag = cute.make_rmem_tensor(cute.make_layout(8), cutlass.Float32)
            for i in cutlass.range({bound}):
                frag[i] = 0.0
    """)
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    assert (runtime_trip_count(ctx, loop, function) is not None) is runtime


@pytest.mark.parametrize("body, kept", [
    ("compiled = cute.compile(f, from_dlpack(x))\n    compiled(from_dlpack(x))", False),
    ("compiled = cute.compile(f, from_dlpack(x))\n    CACHE[1] = compiled", True),
    ("compiled = cute.compile(f, from_dlpack(x))\n    return compiled", True),
    ("compiled = cute.compile(f, from_dlpack(x))\n    return lambda y: compiled(y)", True),
    ("self.fn = cute.compile(f, from_dlpack(x))", True),
])
def test_result_kept(body, kept):
    from kernelint.model.cute.host import result_kept

    ctx, tree = context(f"CACHE = {{}}\n\ndef g(self, f, x):\n    {body}\n")
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "compile")
    assert result_kept(ctx, call) is kept


@pytest.mark.parametrize("argument, tensor", [
    ("from_dlpack(q)", "q"),
    ("from_dlpack(q.contiguous())", "q"),
    ("t", "t"),                      # annotated torch.Tensor
    ("from_dlpack(torch.empty_like(q))", None),
    ("size", None),                  # a plain parameter, not wrapped
])
def test_caller_tensor(argument, tensor):
    from kernelint.model.cute.host import caller_tensor

    ctx, tree = context(f"def g(q, t: torch.Tensor, size):\n    mark('a', {argument})\n")
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    assert caller_tensor(ctx, function, marked(tree, "a")) == tensor
