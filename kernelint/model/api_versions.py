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
``HAS_TMA`` or ``_AVAILABLE``), or after such a probe in an ``or`` (``getattr(cute, "make_rmem_tensor",
None) or cute.make_fragment``). A project that supports several releases says so in such code, and
kernelint cannot tell which branch runs. Names in type annotations are not uses.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Iterator

from kernelint.model.dsl import DSLS
from kernelint.model.dsl.versioning import DEPRECATED, MISSING, ApiChange, Status, status_in
from kernelint.model.core.names import canonical
from kernelint.model.core.walk import ancestors, parent

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
        if isinstance(ancestor, ast.BoolOp) and child in ancestor.values:
            # `getattr(cute, "make_rmem_tensor", None) or cute.make_fragment`: the fallback runs only
            # when the probe before it finds nothing.
            earlier = ancestor.values[:ancestor.values.index(child)]
            if any(_VERSION_WORDS.search(ast.unparse(value)) for value in earlier):
                return True
        child = ancestor
    return False


def in_annotation(node: ast.AST) -> bool:
    """``node`` is part of a type annotation (a local variable's is never evaluated; others are
    not evaluated under ``from __future__ import annotations``), so it cannot fail at run time."""
    child = node
    for ancestor in ancestors(node):
        if isinstance(ancestor, (ast.AnnAssign, ast.arg)) and child is ancestor.annotation:
            return True
        if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef)) and child is ancestor.returns:
            return True
        if isinstance(ancestor, ast.stmt) and not isinstance(ancestor, ast.AnnAssign):
            return False
        child = ancestor
    return False


#: Folders that hold code for a vendor's Triton fork (FlagGems' runtime/backend/_<vendor>, fla's
#: backends/triton_ascend): the fork has its own releases, which the upstream table does not know.
_VENDOR_FOLDERS = frozenset({
    "_aipu", "_arm", "_ascend", "_cambricon", "_hygon", "_iluvatar", "_kunlunxin", "_metax", "_mthreads",
    "triton_ascend", "ascend", "npu", "musa", "mlu", "kunlunxin", "cambricon",
})


def vendor_fork(ctx) -> bool:
    """The file is written for a vendor's Triton fork (an NPU, MLU, XPU, MUSA ... backend): its
    text names one (``backends.foreign_backend``) or it lives in a vendor's backend folder."""
    from pathlib import PurePath

    from kernelint.model.triton.backends import foreign_backend

    return foreign_backend(ctx) or any(part.lower() in _VENDOR_FOLDERS for part in PurePath(ctx.path).parts[:-1])


def api_uses(ctx, dsl: str, guarded: bool = False) -> Iterator[ApiUse]:
    """Every use of an API of ``dsl``'s table whose status in the file's target release is missing
    or deprecated; with ``guarded=False`` (the default) version-guarded uses are left out. A Triton
    file written for a vendor's fork has none (the fork's releases are not upstream's)."""
    if dsl == "triton" and vendor_fork(ctx):
        return
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
    # Only a name an import binds, or an attribute spelled like the last part of a tabled API
    # (or of a prefix canonical names rewrite), can name one: the rest need no qualname.
    last_parts = _last_parts(names)
    names_an_api: dict[str, bool] = {}  # a bare name's qualname depends on its spelling alone
    for node_type in (ast.Attribute, ast.Name):
        for node in ctx.nodes(node_type):
            if not isinstance(node.ctx, ast.Load):
                continue
            if isinstance(node, ast.Name):
                if node.id in imported_names or not ctx.imports.binds(node.id):
                    continue
                if node.id not in names_an_api:
                    names_an_api[node.id] = ctx.qualname(node) in names
                if not names_an_api[node.id]:
                    continue
            if isinstance(node, ast.Attribute) and node.attr not in last_parts:
                continue
            api = ctx.qualname(node)
            if api not in names or in_annotation(node):
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


def _last_parts(names: frozenset[str]) -> frozenset[str]:
    from kernelint.model.dsl import CANONICAL_PREFIXES

    parts = {name.rsplit(".", 1)[-1] for name in names}
    for prefix, _ in CANONICAL_PREFIXES:
        parts.add(prefix.rstrip(".").rsplit(".", 1)[-1])
    return frozenset(parts)


#: How messages spell a qualified name: (prefix, short prefix) per DSL.
_SHORT_PREFIXES = {
    "triton": (("triton.language.", "tl."),),
    "cute": (("cutlass.cute.", "cute."),),
    "cutile": (("cuda.tile.", "ct."),),
}


def short(dsl: str, qualname: str) -> str:
    """``triton.language.dot(allow_tf32=)`` -> ``tl.dot(allow_tf32=)``, as code usually spells it."""
    for prefix, spelled in _SHORT_PREFIXES.get(dsl, ()):
        if qualname.startswith(prefix):
            return spelled + qualname[len(prefix):]
    return qualname


def failure_of(use, ctx, dsl: str) -> str:
    """How a missing API fails where it is used."""
    if isinstance(use.node, ast.keyword):
        return "TypeError: unexpected keyword argument"
    if isinstance(use.node, (ast.alias, ast.ImportFrom)):
        return "ImportError when the module is imported"
    if ctx.kernel_of(use.node, dsl) is not None:
        return "AttributeError when the kernel is compiled"
    return "AttributeError"


def describe(use, ctx, dsl: str, failure: str | None = None) -> tuple[str, bool]:
    """The message for one use of a tabled API, and whether it is a deprecation (else the API is
    missing from the target release)."""
    from kernelint.model.dsl.versioning import ADDED, removal_of

    target = ctx.target(dsl)
    change = use.change
    product = target.describe().split(" ")[0] if dsl == "triton" else {"cute": "CuTe DSL", "cutile": "cuTile"}[dsl]
    name = f"`{short(dsl, use.api)}`"
    if change.replacement:
        instead = f"; use {short(dsl, change.replacement)}"
    else:
        instead = f"; {change.note}" if change.note else ""
    assumed = f"this code targets {target.describe()}"
    if use.status.state == DEPRECATED:
        removal = removal_of(DSLS[dsl].API_CHANGES, use.api)
        later = f" and removed in {removal.version}" if removal is not None else ""
        return f"{name} is deprecated since {product} {change.version}{later}; {assumed}{instead}", True
    failure = failure or failure_of(use, ctx, dsl)
    if change.kind == ADDED:
        return (f"{name} first ships in {product} {change.version}; {assumed}, where it fails ({failure})"
                f"{instead}"), False
    return f"{name} was removed in {product} {change.version}; {assumed}, where it fails ({failure}){instead}", False


def rename_fix(use, dsl: str):
    """The fix of a pure rename within one module (``tl._experimental_make_tensor_descriptor`` ->
    ``tl.make_tensor_descriptor``, ``cute.make_fragment`` -> ``cute.make_rmem_tensor``), or of a
    name that moved to a parent module it shares a spelling with (``cute.core.ThrMma`` ->
    ``cute.ThrMma``); None for anything else."""
    from kernelint.edits import replace, replace_attribute_name
    from kernelint.findings import Fix
    from kernelint.model.dsl.versioning import REMOVED

    change, node = use.change, use.node
    if not (change.mechanical and change.kind in (REMOVED, DEPRECATED) and isinstance(node, ast.Attribute)):
        return None
    old_module, _ = use.api.rsplit(".", 1)
    new_module, new_name = change.replacement.rsplit(".", 1)
    title = f"Use {short(dsl, change.replacement)}"
    if old_module == new_module:
        return Fix(title, (replace_attribute_name(node, new_name),), safe=True)
    if old_module.startswith(new_module + ".") and isinstance(node.value, ast.Attribute):
        # cute.core.ThrMma -> cute.ThrMma: drop the module attribute in between.
        inner = node.value
        if old_module.rsplit(".", 1)[-1] == inner.attr:
            source = ast.unparse(inner.value)
            return Fix(title, (replace(node, f"{source}.{new_name}"),), safe=True)
    return None
