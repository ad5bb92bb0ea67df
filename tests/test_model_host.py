"""model/project/host.py: the dtypes a host tensor can have, followed through the code that
makes it; unknown stays unknown."""
from __future__ import annotations

import ast
import textwrap

import pytest

from kernelint.model.context import FileContext
from kernelint.model.project.host import addresses_of, dtypes_of


def _returned(source: str, function: str):
    source = textwrap.dedent(source)
    ctx = FileContext("snippet.py", source, ast.parse(source), ())
    node = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    value = next(n.value for n in ast.walk(node) if isinstance(n, ast.Return))
    return dtypes_of(ctx.project, ctx, value)


@pytest.mark.parametrize("expression, expected", [
    ("torch.empty(n, dtype=torch.float32)", {"float32"}),
    ("torch.empty(n)", {"float32"}),
    ("torch.empty_like(x, dtype=torch.bfloat16)", {"bfloat16"}),
    ("torch.zeros(n, dtype=x.dtype)", {"float16"}),
    ("torch.empty_like(x)", {"float16"}),
    ("x.float()", {"float32"}),
    ("x.to(torch.bfloat16)", {"bfloat16"}),
    ("x.to('cuda')", {"float16"}),
    ("x.transpose(0, 1).contiguous()", {"float16"}),
    ("x.new_empty((n,), dtype=torch.int64)", {"int64"}),
    ("torch.cat([x, x])", {"float16"}),
    ("x.view(torch.int16)", {"int16"}),
    ("torch.empty(n, dtype=None or torch.float64)", {"float64"}),
])
def test_dtype_of_an_expression(expression, expected):
    found = _returned(f"""
        import torch
        def make(n):
            x = torch.empty(n, dtype=torch.float16)
            return {expression}
    """, "make")
    assert found.complete and set(found.known) == expected


def test_a_parameter_takes_what_every_caller_passes():
    found = _returned("""
        import torch
        def op(x):
            return x.contiguous()
        def first(n):
            return op(torch.empty(n, dtype=torch.bfloat16))
        def second(n):
            return op(torch.empty(n, dtype=torch.float16))
    """, "op")
    assert found.complete and set(found.known) == {"bfloat16", "float16"}


def test_a_parameter_no_one_passes_is_unknown():
    found = _returned("""
        import torch
        def op(x):
            return x.contiguous()
    """, "op")
    assert found.unknown and not found.only({"float32"})


def test_a_call_returns_what_the_function_makes_with_its_arguments_bound():
    found = _returned("""
        import torch
        def alloc_like(t, dtype=None):
            return torch.empty_like(t, dtype=dtype or t.dtype)
        def make(n):
            x = torch.empty(n, dtype=torch.float16)
            return alloc_like(x, dtype=torch.float32)
    """, "make")
    assert found.complete and set(found.known) == {"float32"}


def test_a_rebinding_in_a_loop_does_not_recurse_forever():
    found = _returned("""
        import torch
        def make(n, steps):
            x = torch.empty(n, dtype=torch.float16)
            for _ in range(steps):
                x = x.contiguous()
            return x
    """, "make")
    assert found.complete and set(found.known) == {"float16"}


def test_a_call_it_cannot_read_makes_the_answer_incomplete():
    found = _returned("""
        import torch
        def make(n):
            x = some_library.make_tensor(n)
            return x.float() if n > 3 else x
    """, "make")
    assert set(found.known) == {"float32"} and not found.complete


def test_an_attribute_takes_what_the_class_assigns_it():
    found = _returned("""
        import torch
        class Workspace:
            def __init__(self, n):
                self.partial_sums = torch.zeros(n, dtype=torch.float32)
            def sums(self):
                return self.partial_sums
    """, "sums")
    assert found.complete and set(found.known) == {"float32"}


def test_a_module_parameter_is_unknown_whatever_init_made():
    """``model.half()`` converts parameters after ``__init__``."""
    found = _returned("""
        import torch
        class Norm(torch.nn.Module):
            def __init__(self, hidden):
                super().__init__()
                self.weight = torch.nn.Parameter(torch.ones(hidden, dtype=torch.float32))
            def weight_of(self):
                return self.weight
    """, "weight_of")
    assert found.unknown


def test_an_attribute_no_method_assigns_is_unknown():
    found = _returned("""
        import torch
        class Norm(torch.nn.Module):
            def weight_of(self):
                return self.weight
    """, "weight_of")
    assert found.unknown


def _returned_addresses(source: str, function: str):
    source = textwrap.dedent(source)
    ctx = FileContext("snippet.py", source, ast.parse(source), ())
    node = next(n for n in ast.walk(ctx.tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    value = next(n.value for n in ast.walk(node) if isinstance(n, ast.Return))
    return addresses_of(ctx.project, ctx, value)


@pytest.mark.parametrize("expression, expected", [
    ("groups[i]", {"float16"}),
    ("[g.float() for g in groups][0]", {"float32"}),
    ("next(iter(groups))", None),
    ("(groups[0], w)[1]", {"bfloat16"}),
    ("[a for a in groups] + [w]", {"float16", "bfloat16"}),
    ("pair[0]", {"float16", "bfloat16"}),
    ("picked", {"float16"}),
    ("zipped", {"bfloat16"}),
    ("grown[0]", {"float16", "int8"}),
    ("empty[0]", None),
    ("replaced[0]", None),
])
def test_an_element_of_a_list_has_the_dtypes_of_the_elements(expression, expected):
    found = _returned(f"""
        import torch
        def make(n, i):
            groups = [torch.empty(n, dtype=torch.float16) for _ in range(4)]
            w = torch.empty(n, dtype=torch.bfloat16)
            pair = [groups[0], w]
            for picked in groups:
                pass
            for g, zipped in zip(groups, [w, w]):
                pass
            grown = []
            grown.append(groups[0])
            grown += [torch.zeros(n, dtype=torch.int8)]
            empty = []
            replaced = [groups[0]]
            replaced[0] = torch.zeros(n, dtype=torch.float32)
            return {expression}
    """, "make")
    if expected is None:
        assert not found.complete
    else:
        assert found.complete and set(found.known) == expected, found


def test_renamed_mixes_the_comprehension_variable_and_the_function_variable():
    # ``a`` inside the comprehension is its own variable: the function's ``a`` (bf16) reaches only
    # the ``else`` branch, the comprehension's (fp16) the other.
    found = _returned("""
        import torch
        def make(n):
            groups = [torch.empty(n, dtype=torch.float16)]
            a = torch.empty(n, dtype=torch.bfloat16)
            return [a for a in groups][0] if n else a
    """, "make")
    assert found.complete and set(found.known) == {"float16", "bfloat16"}


@pytest.mark.parametrize("table, expected", [
    ("torch.tensor([a.data_ptr() for a in group_a], device=device)", {"float16"}),
    ("torch.tensor(addrs, dtype=torch.int64).cuda()", {"float16", "float32"}),
    ("torch.tensor([x.data_ptr() for _, x in enumerate(group_a)] + [out.data_ptr()])", {"float16", "float32"}),
    ("out.data_ptr()", {"float32"}),
    ("out.data_ptr() + 4 * out.element_size()", {"float32"}),
    ("torch.tensor([a.data_ptr() + a.stride(0) * 2 for a in group_a])", {"float16"}),
    ("out.data_ptr() + group_a[0].data_ptr()", None),
    ("4 - out.data_ptr()", None),
    ("torch.tensor([0] + [a.data_ptr() for a in group_a])", None),
    ("torch.tensor([a.stride(0) for a in group_a])", None),
    ("torch.tensor(addrs).to(torch.float32)", None),
])
def test_the_tensors_an_address_table_points_into(table, expected):
    found = _returned_addresses(f"""
        import torch
        def tables(n, device):
            group_a = [torch.randn(n, n, dtype=torch.float16) for _ in range(3)]
            out = torch.empty(n, dtype=torch.float32)
            addrs = []
            for a in group_a:
                addrs.append(a.data_ptr())
            addrs.append(out.data_ptr())
            return {table}
    """, "tables")
    if expected is None:
        assert not found.complete
    else:
        assert found.complete and set(found.known) == expected, found


def test_an_address_table_follows_the_wrapper_callers():
    found = _returned_addresses("""
        import torch
        def table(group):
            return torch.tensor([g.data_ptr() for g in group])
        def caller(n):
            return table([torch.empty(n, dtype=torch.bfloat16)])
        def runner():
            return table(group)
    """, "runner")
    assert not found.complete  # the module-level ``group`` is not followed
    found = _returned_addresses("""
        import torch
        def table(group):
            return torch.tensor([g.data_ptr() for g in group])
        def caller(n):
            return table([torch.empty(n, dtype=torch.bfloat16), torch.empty(n, dtype=torch.bfloat16)])
    """, "caller")
    assert found.complete and set(found.known) == {"bfloat16"}
