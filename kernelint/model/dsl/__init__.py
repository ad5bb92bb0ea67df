"""What kernelint knows about each DSL's API, one module per DSL (astroid calls these "brains").

Rules and the model ask these modules for qualified names, argument positions, dtype tables,
decorators and import roots; nothing else in kernelint spells a DSL's API. Adding a DSL means
adding a module here and listing it in ``DSLS``.
"""
from __future__ import annotations

from types import ModuleType

from kernelint.model.dsl import cute, cutile, triton

#: DSL name (as rules' ``dsl`` attribute spells it) -> its knowledge module.
DSLS: dict[str, ModuleType] = {"triton": triton, "cute": cute, "cutile": cutile}

#: Kernel decorator qualified name -> DSL name.
KERNEL_DECORATORS: dict[str, str] = {
    decorator: name for name, module in DSLS.items() for decorator in module.KERNEL_DECORATORS
}

#: Parameter annotations that make a parameter a compile-time constant, in any DSL.
CONSTEXPR_ANNOTATIONS: frozenset[str] = frozenset().union(*(m.CONSTEXPR_ANNOTATIONS for m in DSLS.values()))

#: (private or re-exported module path prefix, public prefix) pairs of every DSL.
CANONICAL_PREFIXES: tuple[tuple[str, str], ...] = tuple(
    pair for module in DSLS.values() for pair in module.CANONICAL_PREFIXES
)

#: Substrings of a file's text without which it cannot define or launch a kernel of any DSL.
SOURCE_MARKERS: tuple[str, ...] = tuple(marker for m in DSLS.values() for marker in m.SOURCE_MARKERS)


def import_roots(dsl: str) -> tuple[str, ...]:
    """Module roots a file must import for rules of ``dsl`` to apply (``()``: any file)."""
    module = DSLS.get(dsl)
    return module.IMPORT_ROOTS if module is not None else ()
