"""The cuTile model (kernelint/model/cutile/tiles.py): which functions are tile code, what shape and
dtype a tile provably has, and what a ct.launch grid provably is."""
from __future__ import annotations

import ast
import textwrap

import pytest

from kernelint.model import FileContext
from kernelint.model.cutile.tiles import grid_forms, tile_dtype, tile_function_of, tile_shape

HEADER = "import math\nimport cuda.tile as ct\nimport torch\n"


def context(body: str) -> tuple[FileContext, ast.Module]:
    source = HEADER + textwrap.dedent(body)
    tree = ast.parse(source)
    return FileContext("snippet.py", source, tree, ()), tree


def probe(tree: ast.Module) -> ast.expr:
    """The argument of the last ``probe(...)`` call."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "probe"]
    return calls[-1].args[0]


def test_tile_code_is_kernels_tile_functions_and_what_they_call():
    ctx, tree = context("""
        def helper(x):
            return inner(x)

        def inner(x):
            return x

        def host_only(x):
            return x

        @ct.function
        def device_fn(x):
            return x

        @ct.function(host=True)
        def both(x):
            return x

        def wrapped(x):
            return x

        k2 = ct.kernel(wrapped)

        @ct.kernel
        def k(x):
            helper(x)
    """)
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    tile = {name for name, node in functions.items() if tile_function_of(ctx, node.body[0]) is not None}
    assert tile == {"k", "helper", "inner", "device_fn", "wrapped"}


@pytest.mark.parametrize("body, expected", [
    ("t = ct.load(a, index=(0,), shape=(T, 16))\nprobe(t)", ["T", "16"]),
    ("t = ct.load(a, index=(0,), shape=(T,)).astype(ct.float32) * 2\nprobe(t)", ["T"]),
    ("acc = ct.zeros((M, N), dtype=ct.float32)\nfor k in range(4):\n    acc = ct.mma(x, y, acc)\nprobe(acc)",
     ["M", "N"]),
    ("t = ct.reshape(u, (1, N))\nprobe(t)", ["1", "N"]),
    ("t = x if c else y\nprobe(t)", None),
])
def test_tile_shape(body, expected):
    ctx, tree = context("@ct.kernel\ndef k(a, x, y, u, c, T: ct.Constant[int], M: ct.Constant[int], N: ct.Constant[int]):\n"
                        + textwrap.indent(body, "    "))
    shape = tile_shape(ctx, probe(tree))
    assert (None if shape is None else [ast.unparse(e) for e in shape]) == expected


@pytest.mark.parametrize("body, expected", [
    ("t = ct.astype(ct.load(a, index=(0,), shape=(16,)), ct.float32)", "float32"),
    ("t = ct.load(a, index=(0,), shape=(16,)).astype(ct.tfloat32)", "tfloat32"),
    ("t = ct.full((16,), 0.0, dtype=ct.bfloat16) * 2.0", "bfloat16"),
    ("t = ct.load(a, index=(0,), shape=(16,))", None),
    ("d = ct.tfloat32 if a.dtype == ct.float32 else a.dtype\nt = ct.load(a, index=(0,), shape=(16,)).astype(d)", None),
    ("t = ct.astype(u, ct.float32)\nt = ct.astype(u, ct.float16)", "float16"),
    ("t = ct.astype(u, ct.float32) * s", None),
])
def test_tile_dtype(body, expected):
    ctx, tree = context("@ct.kernel\ndef k(a, u, s):\n" + textwrap.indent(body + "\nprobe(t)", "    "))
    assert tile_dtype(ctx, probe(tree)) == expected


@pytest.mark.parametrize("body, expected", [
    ("g = (n,)", [("tuple", 1)]),
    ("g = (n, 1) + (1, 1)", [("tuple", 4)]),
    ("g = ct.cdiv(n, 128)", [("int", None)]),
    ("g = math.ceil(n / 128)", [("int", None)]),
    ("g = [n, 1, 1]", [("list", None)]),
    ("g = lambda meta: (n,)", [("function", None)]),
    ("g = (n,)\nif n > 4:\n    g = n // 2", [("tuple", 1), ("int", None)]),
    ("g = make_grid(n)", None),
    ("g = x.shape", None),
])
def test_grid_forms(body, expected):
    ctx, tree = context("def host(x, n):\n" + textwrap.indent(body + "\nprobe(g)", "    "))
    forms = grid_forms(ctx, probe(tree))
    found = None if forms is None else sorted(((f.kind, f.length) for f in forms), key=str)
    assert found == (None if expected is None else sorted(expected, key=str))


# --- partial tiles (KL404) ------------------------------------------------------------------------

def _loads(tree):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "load"]


@pytest.mark.parametrize("loop, partial", [
    ("range(ct.cdiv(N, TILE))", True),
    ("range(ct.num_tiles(x, axis=1, shape=(1, TILE)))", True),
    ("range((N + TILE - 1) // TILE)", True),
    ("range(ct.num_tiles(x, axis=0, shape=(1, TILE)))", False),  # counts tiles of the other axis
    ("range(ct.cdiv(N, 64))", False),                            # another extent
    ("range(4)", False),
])
def test_partial_axes_from_rounded_up_tile_counts(loop, partial):
    from kernelint.model.cutile.tiles import partial_axes

    ctx, tree = context(f"""
        @ct.kernel
        def k(x, N: int, TILE: ct.Constant[int]):
            row = ct.bid(0)
            for j in {loop}:
                t = ct.load(x, index=(row, j), shape=(1, TILE))
    """)
    axes = partial_axes(ctx, _loads(tree)[0])
    assert [a.axis for a in axes] == ([-1] if partial else [])


def test_partial_axes_from_a_power_of_two_launch_and_not_from_the_size_itself():
    from kernelint.model.cutile.tiles import partial_axes

    body = """
        @ct.kernel
        def k(x, TILE_N: ct.Constant[int]):
            t = ct.load(x, index=(ct.bid(0), 0), shape=(1, TILE_N))

        def launch(x):
            ct.launch(torch.cuda.current_stream(), (x.shape[0],), k, (x, {tile}))
    """
    ctx, tree = context(body.format(tile="1 << (x.shape[1] - 1).bit_length()"))
    assert [a.axis for a in partial_axes(ctx, _loads(tree)[0])] == [-1]
    ctx, tree = context(body.format(tile="x.shape[1]"))
    assert partial_axes(ctx, _loads(tree)[0]) == []


@pytest.mark.parametrize("expr, rounded", [
    ("triton.next_power_of_2(n)", "n"),
    ("1 << (n - 1).bit_length()", "n"),
    ("2 ** math.ceil(math.log2(n))", "n"),
    ("max(16, next_power_of_2(n))", "n"),
    ("next_power_of_2(128)", None),  # a constant: nothing is rounded
    ("n", None),
])
def test_power_of_two_ceiling(expr, rounded):
    from kernelint.model.project.sizes import power_of_two_ceiling

    ctx, tree = context(f"probe({expr})\n")
    found = power_of_two_ceiling(ctx, probe(tree))
    assert (ast.unparse(found) if found is not None else None) == rounded
