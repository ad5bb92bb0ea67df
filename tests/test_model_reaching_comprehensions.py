"""Reaching definitions and comprehensions: a comprehension's variable is bound in the
comprehension's own scope (Python 3), so it reaches the uses inside that comprehension and no use
of the enclosing function, and the uses inside it see it rather than the function's binding."""
from __future__ import annotations

import ast
import textwrap

from kernelint.model.context import FileContext
from kernelint.model.core.reaching import reaching_definitions


def _reaching(source: str, line: int, col: int | None = None) -> list[str]:
    """What reaches the load of ``x`` on ``line`` (at ``col`` when the line has several): a
    binding's value, ``param`` or ``loop:<the iterable>`` for a comprehension's variable."""
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    ctx = FileContext("t.py", source, tree, [ast.Call])
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "x" and n.lineno == line
            and isinstance(n.ctx, ast.Load) and (col is None or n.col_offset == col)]
    assert len(uses) == 1, uses
    found = []
    for definition in reaching_definitions(ctx, uses[0]):
        if definition.kind == "param":
            found.append("param")
        elif isinstance(ctx.parent(definition.node), ast.comprehension):
            found.append("loop:" + ast.unparse(ctx.parent(definition.node).iter))
        else:
            found.append(ast.unparse(definition.value) if definition.value is not None else definition.kind)
    return sorted(found)


def test_a_comprehension_variable_does_not_reach_a_use_after_the_comprehension():
    source = """
    def f(x, xs):
        ys = [x * 2 for x in xs]
        return x
    """
    assert _reaching(source, 4) == ["param"]


def test_a_use_inside_the_comprehension_reads_its_variable():
    source = """
    def f(x, xs):
        x = x.float()
        return [x * 2 for x in xs]
    """
    assert _reaching(source, 4) == ["loop:xs"]


def test_the_first_iterable_is_read_in_the_enclosing_scope():
    source = """
    def f(x):
        x = x.chunk(2)
        return [x for x in x]
    """
    assert _reaching(source, 4, col=len("    return [x for x in ")) == ["x.chunk(2)"]


def test_a_later_generator_sees_the_earlier_ones_variable():
    source = """
    def f(x, rows):
        return [x for row in rows for x in row if x]
    """
    assert _reaching(source, 3, col=len("    return [")) == ["loop:row"]
    assert _reaching(source, 3, col=len("    return [x for row in rows for x in row if ")) == ["loop:row"]


def test_a_nested_comprehension_reads_the_outer_ones_variable():
    source = """
    def f(groups):
        return [[y for y in x] for x in groups]
    """
    assert _reaching(source, 3) == ["loop:groups"]


def test_only_a_comprehension_binds_the_name_so_the_module_constant_reaches():
    source = """
    x = 4
    def f(xs):
        ys = [x for x in xs]
        return x
    """
    assert _reaching(source, 5) == ["4"]
