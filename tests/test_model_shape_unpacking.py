"""The model's reading of a shape unpacked into names (``project/shapes.shape_unpacking``,
``dimension_read``), which ``kernelint confirm`` asks instead of reading the forms itself."""
from __future__ import annotations

import ast

from kernelint.model.project.shapes import Unpacking, dimension_read, shape_source, shape_unpacking


def _unpacking(text: str) -> Unpacking | None:
    return shape_unpacking(ast.parse(text).body[0])


def _plain(unpacking: Unpacking | None):
    if unpacking is None:
        return None
    return (ast.unparse(unpacking.tensor), unpacking.names, unpacking.starred,
            tuple((name, ast.unparse(e)) for name, e in unpacking.rest))


def test_a_whole_shape_unpacked():
    assert _plain(_unpacking("B, T, H = q.shape")) == ("q", ("B", "T", "H"), False, ())
    assert _plain(_unpacking("B, _, H = q.size()")) == ("q", ("B", None, "H"), False, ())


def test_a_leading_star_leaves_the_rank_open():
    assert _plain(_unpacking("*batch, N = x.shape")) == ("x", ("N",), True, ())


def test_a_shape_with_more_sizes_after_it():
    assert _plain(_unpacking("B, T, H, K, V = *k.shape, v.shape[-1]")) == (
        "k", ("B", "T", "H", "K"), False, (("V", "v.shape[-1]"),))


def test_what_is_not_an_unpacked_shape():
    for text in ("B = q.shape", "a, b = q.size(0), q.size(1)", "x.a, b = q.shape", "a, *rest, b = q.shape",
                 "B, T = q.size(dim=0)", "a, b = f(x)", "B, T = *k.shape, *v.shape"):
        assert _unpacking(text) is None, text


def test_one_dimension_read():
    def read(text):
        found = dimension_read(ast.parse(text, mode="eval").body)
        return found and (ast.unparse(found[0]), found[1])

    assert read("x.shape[-1]") == ("x", -1)
    assert read("x.size(0)") == ("x", 0)
    assert read("self.w.shape[1]") == ("self.w", 1)
    assert read("x.shape[i]") is None and read("x.size()") is None and read("x.shape[1:]") is None
    assert ast.unparse(shape_source(ast.parse("x.size()", mode="eval").body)) == "x"
    assert shape_source(ast.parse("x.size(1)", mode="eval").body) is None
