"""The index engine's out-of-bounds questions (issue 20, second round): the split of an address
into one index per dimension (index/axes.py), loop-stepped pointers (index/carried.py) and what
still passes the end at sizes that are multiples of the blocks (index/overrun.py)."""
from __future__ import annotations

import ast
import textwrap

from kernelint.model import FileContext
from kernelint.model.index.axes import axis_indices, long_masks, uncovered_axes
from kernelint.model.index.carried import ITERATION, carried_index
from kernelint.model.index.launch import bind, launch_sites
from kernelint.model.index.overrun import overruns
from kernelint.model.project import shapes


def model(source: str) -> FileContext:
    text = textwrap.dedent(source)
    return FileContext("m.py", text, ast.parse(text), ())


TILES = """
import torch
import triton
import triton.language as tl


@triton.jit
def tile_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BM: tl.constexpr, BN: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=offs_m[:, None] < M)
    tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :], x, mask=offs_m[:, None] < N + M)


def run(x):
    M, N = x.shape
    y = torch.empty((M, N), device=x.device)
    tile_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 64))](x, y, M, N, x.stride(0), x.stride(0), BM=32, BN=64)
"""


def _bound(ctx, name):
    kernel = ctx.kernel_named(name)
    index = carried_index(ctx, kernel)
    return index, bind(index, launch_sites(ctx, kernel)[0])


def test_an_address_splits_into_one_index_per_dimension_by_its_strides():
    ctx = model(TILES)
    index, bound = _bound(ctx, "tile_kernel")
    load, store = index.accesses
    rows, cols = axis_indices(bound, load)
    assert (rows.axis, index.symbols.render(rows.index), shapes.render(rows.extent)) == (0, "BM*pid0 + tl.arange(0, BM)", "M")
    assert (cols.axis, index.symbols.render(cols.index), shapes.render(cols.extent)) == (1, "BN*pid1 + tl.arange(0, BN)", "N")
    # the store's row stride is read from x, another tensor: its dimension is not placed
    assert axis_indices(bound, store) is None


def test_a_mask_on_the_rows_leaves_the_columns_past_n_by_a_block_less_one():
    ctx = model(TILES)
    index, bound = _bound(ctx, "tile_kernel")
    (past,) = uncovered_axes(bound, index.accesses[0])
    assert (past.axis, past.excess, past.covered) == (1, 63, (0,))


LOOPS = """
import torch
import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, N, stride, BLOCK: tl.constexpr, EXTRA: tl.constexpr):
    ptrs = x_ptr + tl.program_id(0) * stride + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(0, tl.cdiv(N, BLOCK) + EXTRA):
        acc += tl.load(ptrs)
        ptrs += BLOCK
        acc += tl.load(ptrs, mask=tl.arange(0, BLOCK) < N - (k + 1) * BLOCK)
    tl.store(out_ptr + tl.program_id(0), tl.sum(acc))


def run(x, out):
    M, N = x.shape
    sum_kernel[(M,)](x, out, N, x.stride(0), BLOCK=128, EXTRA=1)


def run_exact(x, out):
    M, N = x.shape
    sum_kernel[(M,)](x, out, N, x.stride(0), BLOCK=128, EXTRA=0)
"""


def test_a_pointer_stepped_in_a_loop_is_its_start_plus_the_iteration_times_the_step():
    ctx = model(LOOPS)
    index = carried_index(ctx, ctx.kernel_named("sum_kernel"))
    before, after = (a for a in index.accesses if a.kind == "load")
    (t,) = [n for n in before.offset.symbols() if n.startswith(ITERATION)]
    assert index.symbols.render(before.offset) == (
        "BLOCK*the iteration of `range(0, tl.cdiv(N, BLOCK) + EXTRA)` + stride*pid0 + tl.arange(0, BLOCK)")
    # after the step, one step further
    assert index.symbols.render(after.offset - before.offset) == "BLOCK"
    assert t in after.offset.symbols()


def test_one_iteration_too_many_passes_the_end_even_at_multiples_of_the_block():
    ctx = model(LOOPS)
    kernel = ctx.kernel_named("sum_kernel")
    found = overruns(ctx, kernel)
    # the unmasked load of the first launch (EXTRA=1); the masked one stays inside
    assert [(o.access.node.lineno, o.dim, o.excess, o.cause.startswith(ITERATION), o.where) for o in found] == [
        (12, 1, 128, True, "m.py:20")]


def test_the_masked_load_bounded_by_what_is_left_is_inside():
    ctx = model(LOOPS)
    index, bound = _bound(ctx, "sum_kernel")
    masked = [a for a in index.accesses if a.masked][0]
    assert long_masks(bound, masked) == []


def test_a_stepped_slice_keeps_the_rounded_up_share_of_its_dimension_at_a_multiple_of_its_stride():
    ctx = model("""
        import torch
        def f(n, M, N, B, T, D):
            flat = torch.empty(n)
            x = torch.empty((M, N))
            y = torch.empty((B, T, D))
            evens, odds, tail, last = flat[::2], flat[1::2], flat[-3:], flat[:-1]
            cols, feats, col = x[:, ::2], y[..., ::4], x[:, 0]
            copied = x[:, ::2].contiguous()
            bins = torch.tensor([10, 99, 11, 99, 12])[0::2]  # triton-lang/triton#10336
            return evens, odds, tail, last, cols, feats, col, copied, bins, torch.tensor([[1, 2], [3]])
    """)
    ret = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.Return))
    evens, odds, tail, last, cols, feats, col, copied, bins, ragged = (
        shapes.tensor_of(None, ctx, e) for e in ret.value.elts)
    shape = lambda t: [shapes.render(d) for d in t.shape]  # noqa: E731
    stride = lambda t: [shapes.render(t.stride(a)) for a in range(len(t.shape))]  # noqa: E731
    assert (shape(evens), stride(evens), evens.contiguous) == (["cdiv(n, 2)"], ["2"], False)
    assert shape(odds) == ["cdiv(n - 1, 2)"]
    assert (shape(tail), shape(last), tail.contiguous) == (["3"], ["n - 1"], True)  # counted from the end
    assert (shape(cols), stride(cols)) == (["M", "cdiv(N, 2)"], ["N", "2"])
    assert (shape(feats), stride(feats)) == (["B", "T", "cdiv(D, 4)"], ["T × D", "D", "4"])
    assert (shape(col), stride(col), col.contiguous) == (["M"], ["N"], False)  # one column: a row apart
    assert (shape(copied), stride(copied), copied.contiguous) == (["M", "cdiv(N, 2)"], ["cdiv(N, 2)", "1"], True)
    assert (shape(bins), stride(bins)) == (["3"], ["2"])
    assert ragged is None


def test_bounds_of_a_negative_multiple_of_a_rounded_division():
    from kernelint.model.index import symexpr as sx
    from kernelint.model.index.bounds import Symbols
    n, two = sx.sym("h:n"), sx.const(2)
    symbols = Symbols()
    # n + 1 >= 2 * cdiv(n, 2) >= n and n >= 2 * (n // 2) >= n - 1, whichever sign multiplies them
    assert (symbols.upper(-2 * sx.cdiv(n, two)), symbols.lower(-2 * sx.cdiv(n, two))) == (-n, -n - 1)
    assert (symbols.upper(-2 * sx.floordiv(n, two)), symbols.lower(-2 * sx.floordiv(n, two))) == (-n + 1, -n)
    assert symbols.lower(2 * n - 2 * sx.cdiv(n, two)) == n - 1  # a mask by n on x[::2]: never shorter


STRIDED_VIEWS = """
import torch
import triton
import triton.language as tl


@triton.jit
def gather_kernel(src_ptr, out_ptr, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(src_ptr + offs * stride, mask=offs < n), mask=offs < n)


def storage_length(x):
    evens = x.reshape(-1)[::2]
    n = x.numel()
    out = torch.empty(n, device=x.device)
    gather_kernel[(triton.cdiv(n, 512),)](evens, out, n, evens.stride(0), BLOCK=512)


def view_length(x):
    odds = x.reshape(-1)[1::2]
    n = x.numel() // 2
    out = torch.empty(n, device=x.device)
    gather_kernel[(triton.cdiv(n, 512),)](odds, out, n, odds.stride(0), BLOCK=512)


def odd_by_the_even_length(x):
    odds = x.reshape(-1)[1::2]
    n = triton.cdiv(x.numel(), 2)
    out = torch.empty(n, device=x.device)
    gather_kernel[(triton.cdiv(n, 512),)](odds, out, n, odds.stride(0), BLOCK=512)
"""


def test_a_mask_by_the_storage_length_passes_a_strided_view_of_it():
    ctx = model(STRIDED_VIEWS)
    kernel = ctx.kernel_named("gather_kernel")
    index = carried_index(ctx, kernel)
    load = next(a for a in index.accesses if a.kind == "load")
    by_storage, by_view, by_even = (bind(index, site) for site in launch_sites(ctx, kernel))
    (long,) = long_masks(by_storage, load)
    assert (shapes.render(long.length), shapes.render(long.extent)) == ("x.numel()", "cdiv(x.numel(), 2)")
    assert long_masks(by_view, load) == []  # n // 2 against cdiv(n - 1, 2), the same count: not longer
    # cdiv(n, 2) - cdiv(n - 1, 2) is 1 for odd n and 0 for even: longer at some sizes, with a witness
    (odd,) = long_masks(by_even, load)
    assert odd.witness is not None and [shapes.label(n) for n in odd.witness[0]] == ["x.numel()"]
    assert odd.witness[1] == 1 and list(odd.witness[0].values()) == [3]
    assert long.witness is None


def test_the_sign_of_a_size_difference_is_decided_only_where_every_size_past_one_agrees():
    from kernelint.model.index import symexpr as sx
    from kernelint.model.index.sign import differs, grows_positive, never_negative, positive_at
    n, m, two = sx.sym("h:n"), sx.sym("h:m"), sx.const(2)
    assert grows_positive(n - sx.cdiv(n, two))  # a mask by n on x[::2]: zero at n = 1 only
    assert grows_positive(n - 1) and grows_positive(n * m - m)
    assert not grows_positive(sx.cdiv(n, two) - sx.cdiv(n - 1, two))  # 1 for odd n, 0 for even
    assert not grows_positive(n - m) and not grows_positive(sx.const(0)) and not grows_positive(1 - n)
    odd = sx.cdiv(n, two) - sx.cdiv(n - 1, two)
    assert never_negative(odd) and positive_at(odd) == ({"h:n": 3}, 1)
    assert not never_negative(n - m) and positive_at(sx.cdiv(n + 1, two) - sx.floordiv(n + 2, two)) is None
    assert differs(n, n - 1) and differs(sx.ONE, n) and differs(two, sx.ONE)
    assert not differs(n, m) and not differs(n, n)


def test_a_stride_read_from_another_tensor_is_compared_with_the_addressed_ones():
    from kernelint.model.index.strides import foreign_strides
    ctx = model("""
        import torch
        import triton
        import triton.language as tl


        @triton.jit
        def copy_kernel(src_ptr, dst_ptr, N, stride_sm, stride_dm, BLOCK: tl.constexpr):
            row = tl.program_id(0)
            cols = tl.arange(0, BLOCK)
            tl.store(dst_ptr + row * stride_dm + cols, tl.load(src_ptr + row * stride_sm + cols, mask=cols < N),
                     mask=cols < N)


        def narrower(x):
            x = x.contiguous()
            M, N = x.shape
            out = torch.empty((M, N - 1), device=x.device)
            copy_kernel[(M,)](x, out, N - 1, x.stride(0), x.stride(0), BLOCK=1024)


        def same(x):
            x = x.contiguous()
            M, N = x.shape
            out = torch.empty_like(x)
            copy_kernel[(M,)](x, out, N, x.stride(0), x.stride(0), BLOCK=1024)
    """)
    kernel = ctx.kernel_named("copy_kernel")
    narrow_site, same_site = launch_sites(ctx, kernel)
    (found,) = foreign_strides(ctx, kernel, narrow_site)
    assert (found.parameter, found.source, found.target, found.axis) == ("stride_dm", "x", "out", 0)
    assert (shapes.render(found.passed), shapes.render(found.actual)) == ("N", "N - 1")
    assert foreign_strides(ctx, kernel, same_site) == []
