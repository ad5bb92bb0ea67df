"""The semantic model: alias resolution, kernels, autotune keys, launches, values."""
from __future__ import annotations

import ast
import textwrap

import pytest

from kernelint.model import FileContext


def model(source: str) -> FileContext:
    text = textwrap.dedent(source)
    return FileContext("m.py", text, ast.parse(text), ())


def first_call(ctx: FileContext) -> ast.Call:
    return next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call))


@pytest.mark.parametrize("imports, call, expected", [
    ("import triton.language as tl", "tl.load(p)", "triton.language.load"),
    ("from triton import language as tl", "tl.load(p)", "triton.language.load"),
    ("import triton", "triton.language.load(p)", "triton.language.load"),
    ("from triton.language import load", "load(p)", "triton.language.load"),
    ("import triton.language as tl", "tl.math.erf(x)", "triton.language.math.erf"),
    ("from triton.language.extra.cuda import libdevice", "libdevice.erf(x)", "triton.language.extra.libdevice.erf"),
    ("from triton.language.extra import libdevice", "libdevice.erf(x)", "triton.language.extra.libdevice.erf"),
    ("import cutlass.cute as cute", "cute.arch.mbarrier_wait(b, p)", "cutlass.cute.arch.mbarrier_wait"),
    ("from cutlass import cute", "cute.arch.mbarrier_wait(b, p)", "cutlass.cute.arch.mbarrier_wait"),
    ("import cutlass", "cutlass.cute.arch.mbarrier_wait(b, p)", "cutlass.cute.arch.mbarrier_wait"),
    ("import cuda.tile as ct", "ct.load(a)", "cuda.tile.load"),
    ("from cuda import tile as ct", "ct.load(a)", "cuda.tile.load"),
    ("from triton.language.core import tensor", "tensor(x)", "triton.language.tensor"),
])
def test_aliases_resolve_to_one_canonical_name(imports, call, expected):
    ctx = model(f"{imports}\n{call}\n")
    assert ctx.call_name(first_call(ctx)) == expected


def test_unimported_and_local_names_do_not_resolve():
    ctx = model("def tl(): pass\nx.load(p)\n")
    assert ctx.call_name(first_call(ctx)) is None


KERNELS = """
import triton
import triton.language as tl
import cutlass
import cutlass.cute as cute
import cuda.tile as ct

configs = [triton.Config({"BLOCK_M": m, "BLOCK_N": 64}, num_warps=4) for m in (64, 128)]

def make_configs():
    return [triton.Config({"BLOCK_K": k}) for k in (32, 64)]

@triton.autotune(configs=configs, key=["M"])
@triton.heuristics(values={"EVEN_K": lambda args: args["K"] % 32 == 0})
@triton.jit
def tuned(x_ptr, M, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, EVEN_K: tl.constexpr):
    pass

@triton.autotune(make_configs(), key=["K"])
@triton.jit(do_not_specialize=["M"])
def built(x_ptr, K, BLOCK_K: tl.constexpr):
    pass

@triton.autotune(configs=[triton.Config(kwargs)], key=[])
@triton.jit
def opaque(x_ptr, BLOCK: tl.constexpr):
    pass

def helper(x):
    return x

class Op:
    @cute.kernel
    def kernel(self, a: cute.Tensor, n: cutlass.Constexpr):
        pass

    @cute.jit
    def __call__(self, a):
        self.kernel(a, 4).launch(grid=[1, 1, 1], block=[128, 1, 1])

@ct.kernel
def tile_kernel(a, TILE: ct.Constant[int]):
    pass

def host(x, n):
    grid = lambda META: (triton.cdiv(n, META["BLOCK_M"]),)
    tuned[grid](x, n, EVEN_K=True)
    built[(4,)](x, n)
    ct.launch(stream, (n, 1, 1), tile_kernel, (x, 16))
"""


def test_kernels_are_found_with_their_dsl_and_tuning():
    ctx = model(KERNELS)
    found = {k.name: k for k in ctx.kernels}
    assert set(found) == {"tuned", "built", "opaque", "kernel", "__call__", "tile_kernel"}
    assert found["tuned"].dsl == "triton" and found["kernel"].dsl == "cute" and found["tile_kernel"].dsl == "cutile"
    assert found["tuned"].autotune.config_keys == {"BLOCK_M", "BLOCK_N"}
    assert found["tuned"].autotune.keys_complete
    assert found["tuned"].heuristic_keys == {"EVEN_K"}
    assert found["tuned"].tuned_names() == {"BLOCK_M", "BLOCK_N", "EVEN_K"}
    assert found["built"].autotune.config_keys == {"BLOCK_K"}
    assert not found["opaque"].autotune.keys_complete
    assert found["tuned"].constexpr_names(ctx.qualname) == {"BLOCK_M", "BLOCK_N", "EVEN_K"}
    assert found["tile_kernel"].constexpr_names(ctx.qualname) == {"TILE"}
    assert found["kernel"].constexpr_names(ctx.qualname) == {"n"}
    assert "helper" not in found


def test_launch_sites_of_every_style():
    ctx = model(KERNELS)
    launches = {(l.style, l.kernel.name if l.kernel else None) for l in ctx.launches}
    assert launches == {("subscript", "tuned"), ("subscript", "built"), ("cutile", "tile_kernel"), ("cute", "kernel")}
    tuned = next(l for l in ctx.launches if l.kernel and l.kernel.name == "tuned")
    assert set(tuned.keywords) == {"EVEN_K"}
    assert isinstance(tuned.grid, ast.Name)
    assert isinstance(next(ctx.values_of(tuned.grid)), ast.Lambda)


def test_kernel_of_and_loops_of():
    ctx = model("""
        import triton
        import triton.language as tl

        @triton.jit
        def k(x_ptr, n):
            for i in range(n):
                while i:
                    y = tl.load(x_ptr + i)
            z = tl.load(x_ptr)

        def host():
            tl.load(0)
    """)
    loads = [n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call) and ctx.call_name(n) == "triton.language.load"]
    inner, outer, host = sorted(loads, key=lambda n: n.lineno)
    assert ctx.kernel_of(inner).name == "k" and ctx.kernel_of(host) is None
    assert [type(l).__name__ for l in ctx.loops_of(inner)] == ["While", "For"]
    assert ctx.loops_of(outer) == []


def test_resolve_int_through_constants_and_locals():
    ctx = model("""
        import triton
        import triton.language as tl
        BLOCK = 64
        WIDE: tl.constexpr = tl.constexpr(BLOCK * 2)
        TWICE = 1
        TWICE = 2

        def f(n):
            local = BLOCK // 4 + 1
            use(local, WIDE, TWICE, n, triton.next_power_of_2(100), 2 ** 10)
    """)
    call = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "use")
    values = [ctx.resolve_int(a) for a in call.args]
    assert values[0] == 17
    assert values[1] == 128
    assert values[2] is None  # assigned twice: not a constant
    assert values[3] is None  # a parameter
    assert values[5] == 1024


def test_definitions_follow_scopes():
    ctx = model("""
        x = 1
        def f():
            x = 2
            return x
        def g():
            return x
    """)
    names = [n for n in ast.walk(ctx.tree) if isinstance(n, ast.Name) and n.id == "x" and isinstance(n.ctx, ast.Load)]
    in_f, in_g = names
    assert [d.value.value for d in ctx.definitions("x", in_f)] == [2]
    assert [d.value.value for d in ctx.definitions("x", in_g)] == [1]


def test_bound_arguments_match_parameters_until_star_args():
    ctx = model(KERNELS.replace("built[(4,)](x, n)", "built[(4,)](x, *rest, BLOCK_K=32)"))
    by_kernel = {l.kernel.name: l.bound_arguments() for l in ctx.launches if l.style == "subscript"}
    assert set(by_kernel["tuned"]) == {"x_ptr", "M", "EVEN_K"}
    assert set(by_kernel["built"]) == {"x_ptr", "BLOCK_K"}


_TUNED = """
import triton
import triton.language as tl

K_DIM = 4096

@triton.autotune(configs=[triton.Config({"BLOCK_K": 64}), triton.Config({"BLOCK_K": 128})], key=["M"])
@triton.jit
def kernel(a, M, N: tl.constexpr, BLOCK_K: tl.constexpr):
    x = K_DIM // BLOCK_K + N

def run(a):
    kernel[(1,)](a, 7, N=1)
"""


def test_int_values_read_literal_autotune_configs_only_when_asked():
    from kernelint.model.triton import tiles

    ctx = model(_TUNED)
    expr = next(n.value for n in ast.walk(ctx.tree) if isinstance(n, ast.Assign) and n.targets[0].id == "x")
    assert tiles.int_values(ctx, expr) == []  # a tuned name is never bound at a launch
    values = tiles.int_values(ctx, expr, configs=True)
    assert sorted(v.value for v in values) == [33, 65]
    assert {ast.unparse(v.site) for v in values} == {"64", "128"}
    unread = model(_TUNED.replace('configs=[triton.Config({"BLOCK_K": 64}), triton.Config({"BLOCK_K": 128})]',
                                  "configs=make_configs()"))
    expr = next(n.value for n in ast.walk(unread.tree) if isinstance(n, ast.Assign) and n.targets[0].id == "x")
    assert tiles.int_values(unread, expr, configs=True) == []
