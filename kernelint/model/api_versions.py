"""Uses of the APIs a DSL's version table (``API_CHANGES``) names, and what each is in the file's
target release.

A use is an import of a tabled module or name (``from triton.tools.experimental_descriptor import
create_2d_tma_descriptor``), an attribute chain that resolves to one (``tl._experimental_descriptor_load``;
the longest chain that is tabled, once), or a tabled keyword of a call (``tl.dot(..., allow_tf32=True)``,
the table's ``qualname(keyword=)`` rows). A name bound by a reported import is not reported again where
it is used.

Code written to run on several releases is left alone: a use inside a ``try`` whose handler catches
``ImportError``, ``ModuleNotFoundError``, ``AttributeError``, ``TypeError``, ``NameError`` or
``Exception`` (or a bare ``except``), or under an ``if`` (or conditional expression) whose test reads
a version or probes for the API (``hasattr``, ``getattr``, ``__version__``, ``version``, names such as
``HAS_TMA`` or ``_AVAILABLE``). A project that supports several releases says so in such code, and
kernelint cannot tell which branch runs.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Iterator

from kernelint.model.dsl import DSLS
from kernelint.model.dsl.versioning import DEPRECATED, MISSING, ApiChange, Status, status_in
from kernelint.model.names import canonical
from kernelint.model.walk import ancestors, parent

_GUARD_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "TypeError", "NameError",
                               "Exception", "BaseException", "NotImplementedError"})
_VERSION_WORDS = re.compile(r"version|hasattr|getattr|__version__|\bHAS_|_AVAILABLE\b|_SUPPORTED\b|SUPPORTS_|"
                            r"\bis_available\b|packaging|Version\(", re.IGNORECASE)


@dataclass(frozen=True)
class ApiUse:
    """One use of a tabled API: the node to report, the API's table key and its status in the
    target release."""

    node: ast.AST
    api: str
    status: Status

    @property
    def change(self) -> ApiChange:
        return self.status.change


def _keyword_apis(changes) -> dict[str, set[str]]:
    """``qualname`` -> keywords the table has ``qualname(keyword=)`` rows for."""
    found: dict[str, set[str]] = {}
    for change in changes:
        if change.api.endswith("=)") and "(" in change.api:
            name, keyword = change.api[:-2].split("(", 1)
            found.setdefault(name, set()).add(keyword)
    return found


def _import_uses(ctx, names: frozenset[str]) -> Iterator[tuple[ast.AST, str, set[str]]]:
    """(node, api, local names it binds) for imports of tabled modules or names."""
    for node in ctx.nodes(ast.Import):
        for alias in node.names:
            qualname = canonical(alias.name)
            if qualname in names:
                yield alias, qualname, {alias.asname or alias.name.split(".")[0]}
    for node in ctx.nodes(ast.ImportFrom):
        if node.level or not node.module:
            continue
        module = canonical(node.module)
        if module in names:
            yield node, module, {a.asname or a.name for a in node.names}
            continue
        for alias in node.names:
            qualname = canonical(f"{node.module}.{alias.name}")
            if qualname in names:
                yield alias, qualname, {alias.asname or alias.name}


def is_version_guarded(node: ast.AST) -> bool:
    """``node`` runs only on some releases: inside a ``try`` that catches what a missing API
    raises, or under an ``if`` / conditional expression whose test reads a version or probes."""
    child = node
    for ancestor in ancestors(node):
        if isinstance(ancestor, ast.Try) and child in ancestor.body:
            for handler in ancestor.handlers:
                if handler.type is None or any(
                    isinstance(t, (ast.Name, ast.Attribute)) and (getattr(t, "id", None) or getattr(t, "attr", None))
                    in _GUARD_EXCEPTIONS
                    for t in (handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type])
                ):
                    return True
        if isinstance(ancestor, (ast.If, ast.IfExp, ast.While)) and child is not ancestor.test:
            if _VERSION_WORDS.search(ast.unparse(ancestor.test)):
                return True
        child = ancestor
    return False


def api_uses(ctx, dsl: str, guarded: bool = False) -> Iterator[ApiUse]:
    """Every use of an API of ``dsl``'s table whose status in the file's target release is missing
    or deprecated; with ``guarded=False`` (the default) version-guarded uses are left out."""
    changes = DSLS[dsl].API_CHANGES
    names = frozenset(c.api for c in changes if not c.api.endswith("=)"))
    target = ctx.target(dsl).version
    imported_names: set[str] = set()
    for node, api, bound in _import_uses(ctx, names):
        status = status_in(changes, api, target)
        if status.state in (MISSING, DEPRECATED):
            imported_names |= bound
            if guarded or not is_version_guarded(node):
                yield ApiUse(node, api, status)
    for node_type in (ast.Attribute, ast.Name):
        for node in ctx.nodes(node_type):
            if not isinstance(node.ctx, ast.Load):
                continue
            if isinstance(node, ast.Name) and node.id in imported_names:
                continue
            api = ctx.qualname(node)
            if api not in names:
                continue
            outer = parent(node)
            if isinstance(outer, ast.Attribute) and ctx.qualname(outer) in names:
                continue  # the longer chain is the use
            status = status_in(changes, api, target)
            if status.state in (MISSING, DEPRECATED) and (guarded or not is_version_guarded(node)):
                yield ApiUse(node, api, status)
    keywords = _keyword_apis(changes)
    for call in ctx.nodes(ast.Call):
        name = ctx.call_name(call)
        for keyword in call.keywords:
            if name in keywords and keyword.arg in keywords[name]:
                api = f"{name}({keyword.arg}=)"
                status = status_in(changes, api, target)
                if status.state in (MISSING, DEPRECATED) and (guarded or not is_version_guarded(call)):
                    yield ApiUse(keyword, api, status)
