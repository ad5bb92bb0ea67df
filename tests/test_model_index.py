"""The index engine (model/index/) and the host shape facts (model/project/shapes.py)."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from kernelint.model import FileContext
from kernelint.model.index import symexpr as sx
from kernelint.model.index.access import kernel_index
from kernelint.model.index.bounds import Range, Symbols
from kernelint.model.index.grid import breach, grid_axes
from kernelint.model.index.launch import bind
from kernelint.model.project import shapes
from kernelint.model.project.view import Site


def model(source: str) -> FileContext:
    text = textwrap.dedent(source)
    return FileContext("m.py", text, ast.parse(text), ())


# --- symexpr -------------------------------------------------------------------------------------

def test_equal_polynomials_are_one_object():
    a, b = sx.sym("a"), sx.sym("b")
    assert (a + b) * 2 is 2 * b + a * 2
    assert (a * b - b * a) is sx.ZERO
    assert sx.render(3 * a * b - 1) == "3*a*b - 1"


def test_divisions_fold_or_become_atoms():
    n = sx.sym("n")
    assert sx.cdiv(sx.const(1000), sx.const(128)) is sx.const(8)
    assert sx.floordiv(128 * n, sx.const(128)) is n
    # (n + 127) // 128 is a ceiling division
    assert sx.floordiv(n + 127, sx.const(128)) is sx.cdiv(n, sx.const(128))
    assert sx.atom_of(next(iter(sx.cdiv(n, sx.const(128)).symbols()))).op == "cdiv"
    assert sx.floordiv(n * sx.sym("k"), sx.sym("k")) is n
    assert sx.minimum(sx.const(3), sx.const(9)) is sx.const(3)
    assert sx.next_power_of_2(sx.const(100)) is sx.const(128)


# --- bounds --------------------------------------------------------------------------------------

def _tail_symbols(block: int = 128) -> tuple[Symbols, sx.Poly]:
    n = sx.sym("n")
    symbols = Symbols({
        "pid0": Range(lo=sx.ZERO, hi=sx.cdiv(n, sx.const(block)) - 1, num_lo=0),
        "lane": Range(lo=sx.ZERO, hi=sx.const(block - 1), num_lo=0, num_hi=block - 1),
    })
    return symbols, block * sx.sym("pid0") + sx.sym("lane")


def test_the_cdiv_lemma_bounds_the_last_tile_relative_to_n():
    symbols, offset = _tail_symbols()
    n = sx.sym("n")
    # pid * 128 + lane <= n - 1 + 127: the last tile reads up to 127 elements past n - 1
    assert symbols.upper(offset) is n + 126
    assert not symbols.implied(offset - n + 1)
    # the mask offs < n makes it safe
    mask = offset - n + 1
    assert symbols.implied(offset - n + 1, (mask,))
    # a mask against another size does not
    assert not symbols.implied(offset - n + 1, (offset - sx.sym("m") + 1,))


def test_numeric_intervals_use_inf_for_sizes():
    symbols = Symbols({"i": Range(num_lo=0, num_hi=127)}, nonnegative=("h:",))
    lo, hi = symbols.interval(sx.sym("i") * 4 + 1)
    assert (lo, hi) == (1, 509)
    assert symbols.interval(sx.sym("i") * sx.sym("h:stride"))[1] == float("inf")
    assert symbols.interval(sx.sym("i") * sx.sym("h:stride"))[0] == 0


# --- host shapes ---------------------------------------------------------------------------------

HOST = """
    import torch, triton
    def fwd(q, cu_seqlens, lengths, x):
        B, T, H, K = q.shape
        N = len(cu_seqlens) - 1
        o = torch.empty(B, H, T, K, device=q.device)
        flat = q.view(-1, K)
        BT = min(64, triton.next_power_of_2(T))
        return (B * H, N * H, lengths.max().item(), o.stride(0), o.numel(), min(B * H, 65535),
                triton.cdiv(T, BT), flat.shape[0], (T + 63) // 64, x.shape[0])
"""


def _returned(ctx: FileContext) -> list[sx.Poly | None]:
    ret = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Return))
    return [shapes.size_of(None, ctx, e) for e in ret.value.elts]


def _growth(poly: sx.Poly) -> list[list[str]]:
    return [sorted(f"{shapes.label(n)}:{shapes.growth(n)}" for n in leaf) for leaf in shapes.leaves(poly) if leaf]


def test_host_sizes_are_polynomials_over_the_reads():
    values = _returned(model(HOST))
    b_h, n_h, longest, stride, numel, capped, chunks, rows, tiles, leading = values
    assert shapes.render(b_h) == "B × H"
    assert _growth(b_h) == [["B:data", "H:dim"]]
    assert ["H:dim", "len(cu_seqlens):data"] in _growth(n_h)
    assert _growth(longest) == [["lengths.max():datadep"]]
    assert shapes.render(stride) == "T × H × K"  # contiguous strides of torch.empty(B, H, T, K)
    assert shapes.render(numel) == "B × T × H × K"
    assert _growth(capped) == []  # min(..., 65535) is bounded
    assert _growth(chunks) == [["T:dim"]]  # a tile count of T, BT <= 64
    assert shapes.render(rows) == "B × T × H"  # view(-1, K) keeps the element count
    assert shapes.render(tiles) == "cdiv(T, 64)"
    assert _growth(leading) == [["x.shape[0]:data"]]


def test_rows_of_a_flattened_tensor_whose_rank_is_not_read():
    ctx = model("""
        import torch
        def f(x, xy, out, flag):
            *batch, n = x.shape
            x2d = x.contiguous().view(-1, n)
            if xy.stride(-1) != 1:
                xy = xy.contiguous()
            xy = xy.reshape(-1, xy.shape[-1])
            a, b = xy.chunk(2, dim=-1)
            y = torch.empty_like(a) if flag else a
            if flag:
                out = out.view(-1, 4)
            return (x2d.shape[0], x2d.stride(0), a.shape[0], a.shape[1], a.stride(0), y.shape[0], out)
    """)
    rows, stride, a_rows, a_cols, a_stride, y_rows, _ = _returned(ctx)
    ret = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Return))
    assert shapes.render(rows) == "(x.numel() // n)"  # the product of the leading dimensions
    assert shapes.render(stride) == "n"  # a view of a contiguous copy
    assert shapes.render(a_rows) == "(xy.numel() // xy.shape[-1])"  # either binding of xy: one shape
    assert shapes.render(a_cols) == "cdiv(xy.shape[-1], 2)"
    assert shapes.render(a_stride) == "xy.shape[-1]"  # a half keeps the whole row's stride
    assert shapes.render(y_rows) == shapes.render(a_rows)
    assert shapes.tensor_of(None, ctx, ret.value.elts[-1]) is None  # the parameter or its view: two shapes


def test_a_name_bound_to_a_shape_and_a_transpose_by_a_parameter():
    ctx = model("""
        def f(X, x, dim, G):
            shape = X.shape
            Xg = X.view(shape[0], G, -1)
            x_sw = x.transpose(dim, -1).contiguous()
            return (shape[0], Xg.shape[2], x_sw.numel() // x_sw.size(-1), x_sw.stride(0))
    """)
    batch, per_group, rows, stride = _returned(ctx)
    assert _growth(batch) == [["X.shape[0]:data"]]
    assert shapes.render(per_group) == "(X.numel() // (G × X.shape[0]))"
    assert shapes.render(rows) == "(x.numel() // x_sw.shape[-1])"  # the element count survives the transpose
    assert shapes.label(next(iter(stride.symbols()))).endswith(".stride(0)")  # its axes do not


def test_statements_under_a_test_the_host_sizes_decide():
    from kernelint.model.project.guards import never_runs

    ctx = model("""
        import triton
        def settings(n):
            return triton.next_power_of_2(n), 4
        def f(x, flag):
            n = x.shape[-1]
            BLOCK, warps = settings(n)
            if n <= BLOCK:
                a = 1
            else:
                b = 2
            if flag and n > max(n, 64):
                c = 3
            if not flag or n < BLOCK:
                d = 4
    """)
    names = {n.targets[0].id: n for n in ast.walk(ctx.tree) if isinstance(n, ast.Assign)
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id in "abcd"}
    assert not never_runs(None, ctx, names["a"])
    assert never_runs(None, ctx, names["b"])  # n > next_power_of_2(n) never holds
    assert never_runs(None, ctx, names["c"])  # n > max(n, 64) never holds, whatever flag is
    assert not never_runs(None, ctx, names["d"])  # n < BLOCK may hold (n = 100), and flag is unknown


def test_unknown_host_values_stay_unknown():
    ctx = model("""
        def f(x, cfg):
            a = cfg["n"]
            b = x.foo()
            return (a, b)
    """)
    assert _returned(ctx) == [None, None]


def test_sizes_follow_the_callers_of_the_wrapper(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "pkg/ops.py").write_text(textwrap.dedent("""
        def launch(x, rows):
            return (rows,)
    """))
    (tmp_path / "pkg/model.py").write_text(textwrap.dedent("""
        from pkg.ops import launch
        def forward(x):
            B, T, D = x.shape
            return launch(x, B * T)
    """))
    path = tmp_path / "pkg/ops.py"
    text = path.read_text()
    ctx = FileContext(str(path), text, ast.parse(text), ())
    ret = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Return))
    rows = shapes.size_of(ctx.project, ctx, ret.value.elts[0])
    assert shapes.render(rows) == "B × T"
    assert any(key.startswith("file:") for key in ctx.project.reads)  # the caller's file is a recorded read


# --- the launch grid -----------------------------------------------------------------------------

@pytest.mark.parametrize("grid, axis, expected", [
    ("(triton.cdiv(D, 64), B * H)", 1, "B × H > 65,535"),
    ("(NK * NV, B * H)", 0, None),  # axis 0: 2^31 - 1
    ("(B, NK * NV)", 1, None),  # tile counts of model dimensions
    ("(S, min(B * H, 65535))", 1, None),
    ("(B, H, lengths.max().item())", 2, "lengths.max() > 65,535"),
    ("(H, triton.cdiv(B * T, 128))", 1, None),  # one size divided by a tile
    ("(B, batch_size * H)", 1, None),  # a host parameter no caller passes
])
def test_grid_axes_that_can_pass_the_limit(grid, axis, expected):
    ctx = model(f"""
        import torch, triton
        import triton.language as tl

        @triton.jit
        def k(x):
            pass

        def launch(q, lengths, batch_size):
            B, T, H, D = q.shape
            S = T
            NK, NV = triton.cdiv(D, 64), triton.cdiv(D, 32)
            k[{grid}](q)
    """)
    launch = ctx.launches_of("triton")[0]
    (axes,) = grid_axes(ctx, launch)
    found = breach(axes[axis])
    assert (found.condition() if found else None) == expected


def test_one_grid_model_for_cutile_and_cute_launches():
    ctx = model("""
        import math, torch
        import cuda.tile as ct
        import cutlass.cute as cute

        @ct.kernel
        def tile_kernel(q):
            pass

        @cute.kernel
        def cute_kernel(q):
            pass

        def launch(q):
            B, H, S, D = q.shape
            ct.launch(torch.cuda.current_stream(), (math.ceil(S / 128), B * H, 1), tile_kernel, (q,))

        @cute.jit
        def launch_cute(mQ):
            b, h, s = mQ.shape
            cute_kernel(mQ).launch(grid=[cute.ceil_div(s, 128), b * h, 1], block=[128, 1, 1])
    """)
    for dsl in ("cutile", "cute"):
        (launch,) = ctx.launches_of(dsl)
        (axes,) = grid_axes(ctx, launch)
        assert breach(axes[0]) is None
        assert breach(axes[1]) is not None, dsl


# --- access records ------------------------------------------------------------------------------

KERNELS = """
    import torch, triton
    import triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs)
        tl.store(out_ptr + offs, x + y, mask=mask)

    @triton.jit
    def rows(x_ptr, o_ptr, stride, N, BLOCK_N: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + row * stride + cols[None, :], mask=cols[None, :] < N)
        bp = tl.make_block_ptr(o_ptr, (N, N), (stride, 1), (row, 0), (1, BLOCK_N), (1, 0))
        tl.store(bp, x, boundary_check=(1,))

    def launch(x, y):
        out = torch.empty_like(x)
        n = x.numel()
        add[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
"""


def test_access_records_read_pointer_offset_and_mask():
    ctx = model(KERNELS)
    add = ctx.kernel_named("add")
    index = kernel_index(ctx, add)
    render = index.symbols.render
    assert [(a.kind, a.pointer, render(a.offset), a.masked) for a in index.accesses] == [
        ("load", "x_ptr", "BLOCK*pid0 + tl.arange(0, BLOCK)", True),
        ("load", "y_ptr", "BLOCK*pid0 + tl.arange(0, BLOCK)", False),
        ("store", "out_ptr", "BLOCK*pid0 + tl.arange(0, BLOCK)", True),
    ]
    assert [render(m) for m in index.accesses[0].mask] == ["BLOCK*pid0 + tl.arange(0, BLOCK) - n + 1"]
    assert kernel_index(ctx, add) is index  # cached per file model


def test_block_pointer_accesses_keep_shape_offsets_and_boundary_check():
    ctx = model(KERNELS)
    index = kernel_index(ctx, ctx.kernel_named("rows"))
    load, store = index.accesses
    assert load.pointer == "x_ptr" and index.symbols.render(load.offset) == "stride*pid0 + tl.arange(0, BLOCK_N)"
    assert list(index.lane_axes.values()) == [1]
    assert store.kind == "block_store" and store.pointer == "o_ptr" and store.boundary_check == (1,)
    assert [index.symbols.render(s) for s in store.block.shape] == ["N", "N"]
    assert [index.symbols.render(s) for s in store.block.block_shape] == ["1", "BLOCK_N"]


def test_under_a_launch_the_unmasked_tail_passes_the_extent():
    ctx = model(KERNELS)
    add = ctx.kernel_named("add")
    index = kernel_index(ctx, add)
    (launch,) = ctx.launches_of("triton")
    bound = bind(index, Site(launch.node, ctx, launch=launch))
    numel = bound.tensors["y_ptr"].numel() if "y_ptr" in bound.tensors else None
    n = bound.substitution["param:n"]
    masked, unmasked = index.accesses[0], index.accesses[1]
    # offs < n under cdiv(n, 1024) programs of 1024: the masked load stays below n ...
    assert bound.symbols.implied(bound.host(masked.offset - sx.sym("param:n") + 1), tuple(bound.host(m) for m in masked.mask))
    # ... the unmasked one reaches n + 1022
    assert bound.symbols.upper(bound.host(unmasked.offset)) is n + 1022
    assert numel is None  # y is a parameter of unknown shape: its extent stays unknown


def _model_in_project(root: Path, files: dict[str, str], checked: str) -> FileContext:
    """Write ``files`` under ``root`` and model the one named ``checked`` (its project view reads
    the others from disk)."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    text = (root / checked).read_text()
    return FileContext(str(root / checked), text, ast.parse(text), ())


def test_launches_in_other_modules_are_found_however_spelled_and_importers_without_one_stay_unparsed(tmp_path):
    """``launches_of`` parses an importer of the kernel's module only when its text can hold a
    launch (``name[...](`` for Triton): a subscript call split by blanks, a line continuation or
    a comment is still found; an importer that only passes the kernel on is not parsed, and the
    text the answer relied on is recorded as read."""
    from kernelint.model.index.launch import launch_sites
    from kernelint.model.project import modules

    files = {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/kernels.py": "import triton\n\n@triton.jit\ndef k(x_ptr, n):\n    pass\n",
        "pkg/plain.py": "from pkg.kernels import k\n\ndef run(x):\n    k[(1,)](x, x.numel())\n",
        "pkg/spaced.py": "from pkg.kernels import k\n\ndef run(x):\n    k[(1,)]  (x, 1)\n",
        "pkg/split.py": ("from pkg.kernels import k\n\ndef run(x):\n    return (k[\n        (1,)\n    ]  # one program\n"
                         "    (x, 2))\n"),
        "pkg/continued.py": "from pkg.kernels import k\n\ndef run(x):\n    k[(1,)] \\\n        (x, 3)\n",
        "pkg/registry.py": "from pkg.kernels import k\n\nKERNELS = {'k': k}\nfirst = [k][0]\n",
    }
    ctx = _model_in_project(tmp_path, files, "pkg/kernels.py")
    (kernel,) = ctx.kernels
    found = sorted(Path(site.ctx.path).name for site in launch_sites(ctx, kernel))
    assert found == ["continued.py", "plain.py", "spaced.py", "split.py"]
    assert not any(Path(parsed).name == "registry.py" for parsed in modules._PARSED)
    assert any(key.startswith("file:") and key.endswith("registry.py") for key in ctx.project.reads)


def test_callers_in_other_modules_are_found_through_renames_and_packages_and_others_stay_unparsed(tmp_path):
    """``callers_of`` parses an importer only when its text can call the function: by its name
    (spaced or split), under an imported rename, or, for a package's importer, under a name the
    package re-exports it as. An importer that only passes the function on stays unparsed, and
    the text the answer relied on is recorded as read."""
    from kernelint.model.project import modules

    files = {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/ops/__init__.py": "from .wrap import launch as run_op\n",
        "pkg/ops/wrap.py": "def launch(x, rows):\n    return rows\n\n\nclass Fn:\n    def forward(ctx, x):\n        return x\n",
        "pkg/direct.py": "from pkg.ops.wrap import launch\n\ndef f(x):\n    return launch (x, 1)\n",
        "pkg/renamed.py": "from pkg.ops.wrap import launch as go\n\ndef f(x):\n    return go(x, 2)\n",
        "pkg/through.py": "from pkg.ops import run_op\n\ndef f(x):\n    return run_op(\n        x, 3)\n",
        "pkg/applied.py": "from pkg.ops.wrap import Fn\n\ndef f(x):\n    return Fn.apply(x)\n",
        "pkg/table.py": "from pkg.ops.wrap import launch, Fn\n\nOPS = {'launch': launch, 'fn': Fn}\n",
        "pkg/listed.py": "from pkg.ops import run_op\n\nOPS = [run_op]\n",
    }
    ctx = _model_in_project(tmp_path, files, "pkg/ops/wrap.py")
    launch, forward = (n for n in ast.walk(ctx.tree) if isinstance(n, ast.FunctionDef))
    callers = sorted(Path(site.ctx.path).name for site in ctx.project.callers_of(launch, ctx))
    assert callers == ["direct.py", "renamed.py", "through.py"]
    assert [Path(site.ctx.path).name for site in ctx.project.callers_of(forward, ctx)] == ["applied.py"]
    for unparsed in ("table.py", "listed.py"):
        assert not any(Path(parsed).name == unparsed and "pkg" in str(parsed) for parsed in modules._PARSED)
        assert any(key.startswith("file:") and key.endswith(unparsed) for key in ctx.project.reads)


def test_int64_answers_kept_across_depths_equal_fresh_ones():
    """``is_int64`` keeps one entry per node across the depths it is asked at: every answer,
    asked in any order, is the one a fresh model gives at that depth (a chain longer than the
    depth limit is int64 only when asked from near its conversion)."""
    from kernelint.model.index.intwidth import is_int64

    chain = "".join(f"    v{i} = v{i - 1} + 1\n" for i in range(1, 16))
    source = ("import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x_ptr, n):\n"
              "    v0 = tl.program_id(0).to(tl.int64)\n" + chain +
              "    w = tl.program_id(0) * n\n    tl.store(x_ptr + v15 + w, 0)\n")
    asked = [(f"v{i}", depth) for i in (15, 3, 12, 8, 15, 1) for depth in (12, 2, 7, 12, 4)] + [("w", 12), ("w", 3)]

    def read(ctx, name):
        return next(n for n in ctx.nodes(ast.Name) if n.id == name and isinstance(n.ctx, ast.Load)
                    and ctx.parent(n) is not None and not isinstance(ctx.parent(n), ast.Assign))

    kept = model(source)
    answers = [is_int64(kept, read(kept, name), depth) for name, depth in asked]
    fresh = []
    for name, depth in asked:
        ctx = model(source)
        fresh.append(is_int64(ctx, read(ctx, name), depth))
    assert answers == fresh
    assert True in fresh and False in fresh
