"""Reaching definitions in loops: a binding later in the loop reaches the next iteration's use
unless a binding that dominates the use, inside the same loop, runs in between."""
from __future__ import annotations

import ast
import textwrap

from kernelint.model.context import FileContext
from kernelint.model.core.reaching import reaching_definitions


def _values_reaching(source: str, line: int) -> list[str]:
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    ctx = FileContext("t.py", source, tree, [ast.Call])
    use = next(n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "s" and n.lineno == line
               and isinstance(n.ctx, ast.Load))
    return sorted(ast.unparse(d.value) for d in reaching_definitions(ctx, use))


def test_a_binding_that_dominates_the_use_inside_the_loop_kills_the_carried_one():
    source = """
    def f(n):
        for i in range(n):
            s = zeros()
            s = step(s)
    """
    assert _values_reaching(source, 5) == ["zeros()"]


def test_a_carried_binding_still_reaches_when_the_dominator_is_outside_the_loop():
    source = """
    def f(n):
        s = zeros()
        for i in range(n):
            s = step(s)
    """
    assert _values_reaching(source, 5) == ["step(s)", "zeros()"]


def test_a_binding_in_a_branch_does_not_kill():
    source = """
    def f(n, c):
        s = zeros()
        for i in range(n):
            if c:
                s = zeros()
            s = step(s)
    """
    assert _values_reaching(source, 7) == ["step(s)", "zeros()", "zeros()"]
