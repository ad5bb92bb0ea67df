"""KL105 tanh-approximation-as-erf: The tanh-GELU formula (0.044715) is used where the code says it
computes erf or the normal CDF."""
from __future__ import annotations

import ast
import re

from kernelint.checkers.triton.helpers import SEED
from kernelint.findings import Confidence, Severity
from kernelint.model.core import calls_graph, dataflow
from kernelint.model.cutile.tiles import tile_function_of
from kernelint.rules import Report, Rule
from kernelint.model.core.walk import subtree

#: Constants that only occur in the tanh approximation of GELU: the cubic coefficient, and the
#: same coefficient folded with sqrt(2/pi).
_TANH_GELU_CONSTANTS = (0.044715, 0.044715 * 0.7978845608028654)


#: Name words that say the exact error function or normal CDF is meant.
_EXACT_WORDS = frozenset({"erf", "erfc", "cdf", "ndtr", "normal", "exact", "gaussian"})


#: Variable-name words that say so (``cdf`` alone is the usual name of tanh-GELU's factor too).
_EXACT_VARIABLE_WORDS = _EXACT_WORDS - {"cdf"}


#: Function-name words that say the approximation is deliberate.
_APPROXIMATE_WORDS = frozenset({"tanh", "approx", "approximate", "fast"})


_FOLLOW_DEPTH = 4

#: What to write instead in cuTile, which has no erf.
_CUTILE_REMEDY = "cuTile has no erf: evaluate an erf polynomial in fp32 (Abramowitz-Stegun 7.1.26)"


def _words(name: str) -> set[str]:
    """``standardNormalCDF_v2`` -> {"standard", "normal", "cdf", "v"}."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1_\2", name)
    return {w for w in re.split(r"[^a-zA-Z]+", spaced.lower()) if w}


def _is_tanh_gelu_constant(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, float)
        and any(abs(node.value - c) <= 1e-6 * c for c in _TANH_GELU_CONSTANTS)
    )


def _chosen_by_tanh_switch(node: ast.AST, ctx) -> bool:
    """Inside a branch selected by a test that mentions tanh (``if approximate == "tanh":``)."""
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, (ast.If, ast.IfExp)):
            for part in ast.walk(ancestor.test):
                text = part.value if isinstance(part, ast.Constant) and isinstance(part.value, str) else (
                    part.id if isinstance(part, ast.Name) else part.attr if isinstance(part, ast.Attribute) else "")
                if _words(text) & _APPROXIMATE_WORDS:
                    return True
    return False


def _returned(statement: ast.stmt, variables: set[str], function: ast.AST) -> bool:
    """The value computed by ``statement`` is what ``function`` returns."""
    if isinstance(statement, ast.Return):
        return True
    return any(
        isinstance(node, ast.Return) and node.value is not None
        and any(isinstance(n, ast.Name) and n.id in variables for n in ast.walk(node.value))
        for node in subtree(function)
    )


def _meaning_at_callers(helper: ast.AST, ctx) -> set[str]:
    """Exact-function words the callers of a helper use for its result: the calling function's
    name and the variables the call's value is assigned to (``erf_x = _poly(x)``); empty when a
    caller marks the approximation as deliberate."""
    meant: set[str] = set()
    for call in calls_graph.call_sites(ctx, helper):
        caller = ctx.function_of(call)
        if caller is None or ctx.kernel_of(call, "triton") is None:
            continue
        caller_words = _words(caller.name)
        if caller_words & _APPROXIMATE_WORDS or _chosen_by_tanh_switch(call, ctx):
            return set()
        statement = ctx.statement_of(call)
        names = dataflow.names_assigned_downstream(statement, caller, _FOLLOW_DEPTH) if statement is not None else set()
        meant |= (caller_words & _EXACT_WORDS) | (set().union(*map(_words, names)) & _EXACT_VARIABLE_WORDS if names else set())
    return meant


class TanhApproximationAsErf(Rule):
    code = "KL105"
    name = "tanh-approximation-as-erf"
    family = "triton-numerics"
    dsl = "triton"
    severity = Severity.ERROR
    confidence = Confidence.MEDIUM  # intent is read from names
    also_dsls = ("cutile",)
    evidence_class = "numerics"
    summary = "The tanh-GELU formula (0.044715) is used where the code says it computes erf or the normal CDF."
    node_types = (ast.Constant,)
    doc = """
## What it does
Flags the tanh approximation of GELU, recognised by its coefficient `0.044715` (or
`0.044715 * sqrt(2/pi)` ≈ `0.0356774`), in Triton kernel code whose names say the exact function
is meant: the enclosing function's name or the variables the formula feeds are called `erf`,
`cdf`, `ndtr`, `normal`, `exact` or `gaussian` (for variables, `cdf` alone does not count: it is
the usual name of tanh-GELU's factor too). When the formula is what a `@triton.jit` helper
returns, the helper's callers in the same file count too: the calling kernel's name and the
variables the helper's result is assigned to (`erf_x = _poly(x)`).

It stays silent when the approximation is deliberate: a function named for it (`gelu_tanh`,
`fast_gelu`, `approx_cdf`) or a branch chosen by a tanh switch (`if approximate == "tanh":`).

In cuTile, the rule reads tile code (`@ct.kernel`, `@ct.function` and the functions of the same
file they call, which cuTile compiles as tile code): the formula built with `ct.tanh` or `ct.exp`
is the same wrong function. cuTile has no `erf` (cuda-tile 1.7.0), so the remedy there is an erf
polynomial evaluated in fp32, such as Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7).
Measured in cuTile on the H200 (cuda-tile 1.7.0, 2^20 points in [-8, 8]): the tanh formula used as
the exact GELU is off by up to 4.7e-4, the polynomial by 4.7e-7.

## Why is this bad?
`0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))` is a fit made for GELU: it is off from the
normal CDF Φ(x) by up to 1.8e-4 (GELU by up to 4.7e-4), and its tanh term, read as `erf(x)`, is
off by up to 0.17. Code that promises the exact GELU, `erf` or Φ and computes this formula
disagrees with `torch.erf`, `torch.special.ndtr` or `F.gelu(approximate="none")` far beyond fp32
tolerance, silently. It often appears after `erf` failed to compile on fp16 input (KL104); the
fix there is an upcast.

## Example
```python
@triton.jit
def standard_normal_cdf(x):
    erf_approx = tanh(0.7978845608 * (x + 0.044715 * x * x * x))
    return 0.5 * (1.0 + erf_approx)
```

## Use instead
```python
@triton.jit
def standard_normal_cdf(x):
    return 0.5 * (1.0 + tl.math.erf(x.to(tl.float32) * 0.7071067811865476))
```
If the tanh approximation is what you want, name it so (`gelu_tanh`).
"""
    references = f"""
- {SEED}, 'Triton Math Function Dtype Requirements (CRITICAL)', 'Common Mistake: Wrong
  Mathematical Substitution'.
- {SEED}, 'Gotchas' table, row 'Math func approx'.
"""

    def check(self, node, ctx):
        if not _is_tanh_gelu_constant(node):
            return
        in_cutile = ctx.kernel_of(node, "triton") is None
        if in_cutile and tile_function_of(ctx, node) is None:
            return
        function = ctx.function_of(node)
        function_words = set()
        for ancestor in [function, *ctx.ancestors(function)]:
            if isinstance(ancestor, (ast.FunctionDef, ast.AsyncFunctionDef)):
                function_words |= _words(ancestor.name)
        if function_words & _APPROXIMATE_WORDS or _chosen_by_tanh_switch(node, ctx):
            return
        statement = ctx.statement_of(node)
        variables = dataflow.names_assigned_downstream(statement, function, _FOLLOW_DEPTH) if statement is not None else set()
        variable_words = set().union(*map(_words, variables)) if variables else set()
        meant = (function_words & _EXACT_WORDS) | (variable_words & _EXACT_VARIABLE_WORDS)
        if not meant and statement is not None and _returned(statement, variables, function):
            meant = _meaning_at_callers(function, ctx)
        if meant:
            yield Report(node, f"tanh-GELU coefficient {node.value} where the code names "
                               f"{'/'.join(sorted(meant))}: this formula is not erf or the exact normal "
                               f"CDF; {_CUTILE_REMEDY if in_cutile else 'use `tl.math.erf` on an fp32 value'}")

