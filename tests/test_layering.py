"""kernelint is layered: no import circle anywhere in the package (imports inside
``if TYPE_CHECKING:`` are for annotations and do not count; imports inside functions do), and
the model's layers point one way."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import kernelint

PACKAGE = Path(kernelint.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ["kernelint", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _imports(tree: ast.AST, modules) -> set[str]:
    found: set[str] = set()
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {f"{node.module}.{a.name}" for a in node.names} | {node.module}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        found |= _imports(node, modules)
    return found & set(modules)


def _components(edges) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative enough here)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    modules = _modules()
    edges = defaultdict(set)
    for name, path in modules.items():
        edges[name] = _imports(ast.parse(path.read_text(encoding="utf-8")), modules) - {name}
    assert [sorted(c) for c in _components(edges)] == []


def test_the_project_layer_never_imports_the_engine_or_a_front_end():
    modules = _modules()
    for name, path in modules.items():
        if name.startswith("kernelint.model"):
            imported = _imports(ast.parse(path.read_text(encoding="utf-8")), modules)
            assert not {i for i in imported if i.split(".")[1] in ("engine", "cli", "runner", "cache")}, name


def test_the_core_imports_no_analysis_of_a_dsl_or_the_project():
    """``model/core`` (bindings, values, data flow, calls) serves the DSL packages, the index
    engine and the project layer; it asks only the DSL knowledge tables (``model/dsl``)."""
    modules = _modules()
    above = ("kernelint.model.triton", "kernelint.model.cute", "kernelint.model.cutile",
             "kernelint.model.project", "kernelint.model.index")
    for name, path in modules.items():
        if name.startswith("kernelint.model.core"):
            imported = _imports(ast.parse(path.read_text(encoding="utf-8")), modules)
            assert not [i for i in imported if i.startswith(above)], name
