"""Where the types a torch-to-Triton dtype table chooses end up, across the project.

A table (``TORCH_TO_TL = {torch.float16: tl.float16, ...}``, an ``if dtype == ...: return tl.x``
chain, a map filled in a loop) is looked up in host code, often in another module than the one
that defines it, and the type it picks is passed to a kernel as a constexpr. What the kernel does
with that constexpr decides what a wrong entry costs: as the element type of a pointer
(``tl.pointer_type(DTYPE)``) or the target of a bitcast, the kernel reads the tensor's bits as
another format; as the target of a value conversion (``x.to(DTYPE)``, ``tl.zeros(..., dtype=DTYPE)``)
it rounds values, which may be what the table is for.

``uses_of_table`` follows every lookup of a table to the kernel parameter it reaches and reads
how the kernel uses it. Unknown stays unknown: a lookup that cannot be followed, a constexpr
handed on to a helper, makes the answer incomplete, and nothing is guessed from names.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kernelint.model.core.calls import argument
from kernelint.model.dsl import triton
from kernelint.model.project.host import DTypes, dtypes_of

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

#: Lookups followed for one table, and caller frames followed from a function that returns one.
_MAX_LOOKUPS = 32
_FRAMES = 2

POINTER, BITCAST, VALUE, UNKNOWN = "pointer", "bitcast", "value", "unknown"
_BITS_USES = {POINTER: "makes it a pointer's element type", BITCAST: "bitcasts to it"}


@dataclass
class TableUses:
    """How the kernels use what a table picks: ``pointers`` says for each kernel (and where it is
    launched) that it makes a pointer element type or a bitcast target of it; ``values`` each that only converts
    values with it; ``complete`` is False when some lookup or use could not be read.
    ``keys`` are the dtypes of the host tensors whose ``.dtype`` is looked up."""

    pointers: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    complete: bool = True
    keys: DTypes = field(default_factory=DTypes)

    @property
    def values_only(self) -> bool:
        """Every lookup reaches a kernel, and every such kernel only converts values with it."""
        return self.complete and bool(self.values) and not self.pointers


def uses_of_table(ctx: "FileContext", table: ast.AST) -> TableUses:
    """What happens to the types ``table`` (a dict display, the first ``if`` of a chain, or the
    ``for`` loop that fills a map) picks, at every lookup of it in the project."""
    uses = TableUses()
    lookups = _lookups(ctx, table)
    if lookups is None or not lookups or len(lookups) > _MAX_LOOKUPS:
        uses.complete = False
        return uses
    for lookup_ctx, lookup in lookups:
        _follow_lookup(ctx, lookup_ctx, lookup, uses, _FRAMES)
    return uses


# --- lookups -----------------------------------------------------------------------------------

def _lookups(ctx: "FileContext", table: ast.AST) -> list[tuple["FileContext", ast.expr]] | None:
    """The expressions whose value is the type the table picks (``T[d]``, ``T.get(d)``, a call
    of the function holding an ``if`` chain); None when the table's value goes elsewhere."""
    if isinstance(table, ast.Dict):
        holder = ctx.parent(table)
        if isinstance(holder, ast.Subscript) and holder.value is table:
            return [(ctx, holder)]
        if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
            return _name_lookups(ctx, holder, holder.targets[0].id)
        return None
    if isinstance(table, (ast.For, ast.AsyncFor)):
        filled = {t.value.id for n in ast.walk(table) if isinstance(n, ast.Assign) for t in n.targets
                  if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)}
        if len(filled) != 1:
            return None
        name = filled.pop()
        bindings = [d.node for d in ctx.definitions(name, table) if isinstance(d.value, ast.Dict)]
        return _name_lookups(ctx, bindings[0], name) if len(bindings) == 1 else None
    if isinstance(table, ast.If):
        return _chain_lookups(ctx, table)
    return None


def _name_lookups(ctx: "FileContext", binding: ast.AST, name: str) -> list[tuple["FileContext", ast.expr]] | None:
    """Lookups of the table bound to ``name`` by ``binding``: in its own file (the uses the
    binding reaches) and, for a module-level table, in the modules that import it."""
    definition = next((d for d in ctx.definitions(name, binding) if d.node is binding), None)
    if definition is None:
        return None
    references = [(ctx, use) for use in ctx.uses_of(definition)]
    if ctx.parent(binding) is ctx.tree:
        references += [(other, node) for node, other in ctx.project.references_to(name, ctx)]
    found = []
    for reference_ctx, reference in references:
        holder = reference_ctx.parent(reference)
        if isinstance(holder, ast.Subscript) and holder.value is reference and isinstance(holder.ctx, ast.Load):
            found.append((reference_ctx, holder))
        elif isinstance(holder, ast.Attribute) and holder.attr == "get" \
                and isinstance(reference_ctx.parent(holder), ast.Call):
            found.append((reference_ctx, reference_ctx.parent(holder)))
        elif isinstance(holder, ast.Subscript) and holder.value is reference:
            continue  # the loop or code that fills the table
        elif isinstance(holder, ast.Compare) and reference is not holder.left:
            continue  # ``dtype in TABLE``
        else:
            return None  # handed on whole: its lookups are out of sight
    return found


def _chain_lookups(ctx: "FileContext", chain: ast.If) -> list[tuple["FileContext", ast.expr]] | None:
    """The calls of the function whose ``if`` chain returns the picked type."""
    function = ctx.function_of(chain)
    statements = []
    node = chain
    while isinstance(node, ast.If):
        statements.extend(node.body[:1])
        node = node.orelse[0] if len(node.orelse) == 1 else None
    if function is None or not statements or not all(isinstance(s, ast.Return) for s in statements):
        return None
    return [(site.ctx, site.node) for site in ctx.project.callers_of(function, ctx)] or None


# --- where a lookup goes -----------------------------------------------------------------------

def _follow_lookup(table_ctx: "FileContext", ctx: "FileContext", lookup: ast.expr, uses: TableUses,
                   frames: int) -> None:
    _record_key(ctx, lookup, uses)
    launch, parameter = ctx.launch_receiving(lookup, imported=True)
    if launch is not None:
        kernel_ctx = launch.kernel_ctx or ctx
        use = kernel_use(kernel_ctx, launch.kernel, parameter.arg) if parameter is not None else UNKNOWN
        where = f"`{launch.kernel.name}` (launched at {ctx.project.display_path(ctx.path)}:{launch.node.lineno})"
        if use in _BITS_USES:
            uses.pointers.append(f"{where} {_BITS_USES[use]}")
        elif use == VALUE:
            uses.values.append(where)
        else:
            uses.complete = False
        return
    function = _returned_by(ctx, lookup)
    sites = ctx.project.callers_of(function, ctx) if function is not None and frames > 0 else []
    if not sites:
        uses.complete = False
        return
    for site in sites:
        _follow_lookup(table_ctx, site.ctx, site.node, uses, frames - 1)


def _record_key(ctx: "FileContext", lookup: ast.expr, uses: TableUses) -> None:
    """The dtypes of the tensor whose ``.dtype`` is the lookup's key (``T[x.dtype]``)."""
    if isinstance(lookup, ast.Subscript):
        key = lookup.slice
    elif isinstance(lookup, ast.Call) and isinstance(lookup.func, ast.Attribute) and lookup.func.attr == "get":
        key = lookup.args[0] if lookup.args else None
    else:
        key = lookup.args[0] if isinstance(lookup, ast.Call) and lookup.args else None
    if isinstance(key, ast.Attribute) and key.attr == "dtype":
        uses.keys.add(dtypes_of(ctx.project, ctx, key.value))


def _returned_by(ctx: "FileContext", expr: ast.expr):
    """The function ``expr`` is returned from, directly or through a name it is assigned to."""
    holder = ctx.parent(expr)
    if isinstance(holder, ast.Return):
        return ctx.function_of(holder)
    if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
        definition = next((d for d in ctx.definitions(holder.targets[0].id, holder) if d.node is holder), None)
        uses = ctx.uses_of(definition) if definition is not None else []
        if uses and all(isinstance(ctx.parent(use), ast.Return) for use in uses):
            return ctx.function_of(holder)
    return None


# --- what the kernel does with it ----------------------------------------------------------------

def kernel_use(ctx: "FileContext", kernel: "Kernel", parameter: str) -> str:
    """How ``kernel`` uses its dtype parameter: ``POINTER`` when some use makes it a pointer's
    element type, else ``BITCAST`` when some use bitcasts to it, ``VALUE`` when every use converts values to it or makes a
    tensor of it, ``UNKNOWN`` otherwise (handed to a helper, stored, unused)."""
    seen = set()
    for node in ast.walk(kernel.node):
        if isinstance(node, ast.Name) and node.id == parameter and isinstance(node.ctx, ast.Load):
            seen.add(_use(ctx, node))
    seen.discard(None)
    for use in (POINTER, BITCAST):
        if use in seen:
            return use
    return VALUE if seen == {VALUE} else UNKNOWN


def _use(ctx: "FileContext", name: ast.Name) -> str | None:
    holder = ctx.parent(name)
    if isinstance(holder, ast.Compare):
        return None  # ``if DTYPE == tl.float16``: a branch, not a use of the type
    if isinstance(holder, ast.keyword) and holder.arg == "dtype":
        call = ctx.parent(holder)
        return _bitcast_use(call) if _is_conversion(ctx, call) else VALUE
    if not isinstance(holder, ast.Call):
        return UNKNOWN
    if ctx.call_name(holder) == triton.POINTER_TYPE:
        return POINTER
    func = holder.func
    is_to = isinstance(func, ast.Attribute) and func.attr == "to" and holder.args and holder.args[0] is name
    is_cast = ctx.call_name(holder) == triton.CAST and len(holder.args) > 1 and holder.args[1] is name
    return _bitcast_use(holder) if is_to or is_cast else UNKNOWN


def _is_conversion(ctx: "FileContext", call: ast.AST) -> bool:
    return isinstance(call, ast.Call) and (
        ctx.call_name(call) == triton.CAST or (isinstance(call.func, ast.Attribute) and call.func.attr == "to"))


def _bitcast_use(conversion: ast.Call) -> str:
    """A conversion to the type: reinterpreting bits with ``bitcast=True``, converting values
    without it; a ``bitcast`` that is not a literal is unknown."""
    bitcast = argument(conversion, "bitcast")
    if bitcast is None or (isinstance(bitcast, ast.Constant) and bitcast.value is False):
        return VALUE
    return BITCAST if isinstance(bitcast, ast.Constant) and bitcast.value is True else UNKNOWN
