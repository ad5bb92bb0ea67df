"""Kernels written for Triton 1.x.

Triton 1.0 and 1.1 passed a launch's keyword arguments to a kernel through a ``**meta`` parameter
(``def _add(X, Y, Z, N, **meta): BLOCK = meta['BLOCK']``; ``code_gen.py`` bound the dict to the
launch keywords). Triton 2.0 dropped that binding in favour of ``tl.constexpr`` parameters, and
3.9.0 refuses the parameter outright. Rules that reason about Triton 2+ semantics (shapes must be
constexpr parameters, ...) would misread such a kernel; they ask :func:`meta_parameter` first.
"""
from __future__ import annotations

import ast
from kernelint.model.core.walk import subtree


def meta_parameter(kernel) -> ast.arg | None:
    """The ``**meta`` parameter of a Triton kernel (any name), or None."""
    if kernel is None or kernel.dsl != "triton":
        return None
    return kernel.node.args.kwarg


def meta_keys(kernel) -> list[str]:
    """The keys a legacy kernel reads from its ``**meta`` dict (``meta['BLOCK']``), in order."""
    parameter = meta_parameter(kernel)
    if parameter is None:
        return []
    keys: list[str] = []
    for node in subtree(kernel.node):
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == parameter.arg
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
                and node.slice.value not in keys):
            keys.append(node.slice.value)
    return keys
