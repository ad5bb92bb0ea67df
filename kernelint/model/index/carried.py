"""Access records that also read values stepped once per loop iteration.

The base index (``access.py``) leaves a name with two reaching bindings unknown. A pointer set
before a loop and stepped in it is one such name, and the usual way K loops walk memory::

    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, ...)
        a_ptrs += BLOCK_K            # or: p = tl.advance(p, (0, BLOCK_K))

``carried_index(ctx, kernel)`` builds the kernel's access records with an evaluator that reads
such a name, at a use inside the loop before the step, as ``start + t * step`` where ``t`` is the
loop's iteration number (``iter:<line>:<col>``, in ``[0, cdiv(hi - lo, step) - 1]``); after the
step it is one step further. A ``range`` loop variable is read the same way, ``lo + step * t``, so
a stepped loop (``for start_n in range(0, n, BLOCK_N)``) is bounded by its last iteration, not by
``n - 1``. It is a separate index, cached per kernel like the base one, and built only for the
rules that ask (the base index and the rules on it are unchanged).

Read only when the step is one unconditional statement of the loop's body (``p += d``,
``p = p + d``, ``p -= d``, ``p = tl.advance(p, steps)``), the other binding is outside the loop,
the use is inside it, and the step does not depend on the loop.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from kernelint.model.core.calls import signature_argument
from kernelint.model.dsl import triton
from kernelint.model.index import symexpr as sx
from kernelint.model.index.access import _RANGES, KernelIndex, _build, _Evaluator
from kernelint.model.index.bounds import Range
from kernelint.model.index.symexpr import Poly
from kernelint.model.core.memo import kept_on

if TYPE_CHECKING:
    from kernelint.model.context import FileContext
    from kernelint.model.kernels import Kernel

ITERATION = "iter:"



def carried_index(ctx: "FileContext", kernel: "Kernel") -> KernelIndex:
    """The access records of ``kernel`` with loop-stepped pointers read (once per file model
    and kernel)."""
    per_file = kept_on(ctx, "carried_index")
    found = per_file.get(id(kernel.node))
    if found is None:
        found = _build(ctx, kernel, _CarriedEvaluator)
        per_file[id(kernel.node)] = found
    return found


def iteration_loops(index: KernelIndex, poly: Poly) -> list[str]:
    """The iteration symbols of loops in ``poly``."""
    return [n for n in poly.symbols() if n.startswith(ITERATION)]


class _CarriedEvaluator(_Evaluator):
    reads_carried = True

    def __init__(self, ctx: "FileContext", kernel: "Kernel"):
        super().__init__(ctx, kernel)
        #: iteration symbol -> its loop statement
        self.loops: dict[str, ast.For] = {}

    # --- loop iterations -----------------------------------------------------------------------

    def iteration(self, loop: ast.For) -> tuple[Poly, Poly, Poly] | None:
        """``(t, lo, step)`` of a ``range`` loop: its iteration number and where and how it steps."""
        iterator = loop.iter
        if not isinstance(iterator, ast.Call) or not iterator.args:
            return None
        builtin = isinstance(iterator.func, ast.Name) and iterator.func.id == "range"
        if not (builtin or self.ctx.call_name(iterator) in _RANGES) or (builtin and iterator.keywords) \
                or any(k.arg in ("arg1", "arg2", "step", None) for k in iterator.keywords):
            return None  # tl.range's other keywords (num_stages, loop_unroll_factor, ...) keep its iterations
        args = iterator.args
        lo = self.value(args[0]) if len(args) > 1 else sx.ZERO
        hi = self.value(args[1] if len(args) > 1 else args[0])
        step = self.value(args[2]) if len(args) > 2 else sx.ONE
        if lo is None or hi is None or step is None or (step.is_const and step.constant <= 0):
            return None
        symbol = f"{ITERATION}{loop.lineno}:{loop.col_offset}"
        if symbol not in self.symbols.ranges:
            trips = sx.cdiv(hi - lo, step)
            self.symbols.set(symbol, Range(lo=sx.ZERO, hi=trips - 1, num_lo=0,
                                           num_hi=self.symbols.interval(trips)[1] - 1,
                                           label=f"the iteration of `{ast.unparse(iterator)}`"))
            self.loops[symbol] = loop
        return sx.sym(symbol), lo, step

    def _loop(self, loop: ast.For, name: ast.Name) -> Poly | None:
        if not isinstance(loop.target, ast.Name):
            return None
        found = self.iteration(loop)
        if found is None:
            return None
        t, lo, step = found
        return lo + step * t

    # --- values stepped in a loop --------------------------------------------------------------

    def carried(self, name: ast.Name, definitions: list, depth: int) -> Poly | None:
        split = self._split(name, definitions)
        if split is None:
            return None
        start, update, loop = split
        increment = _increment(update, name.id)
        if increment is None:
            return None
        expr, sign = increment
        found = self.iteration(loop)
        if found is None:
            return None
        t = found[0]
        step = self.value(expr, depth + 1)
        first = self._start(start, depth)
        if step is None or first is None or any(n.startswith(ITERATION) and self.loops.get(n) is loop
                                                for n in step.symbols()):
            return None
        return first + t * step * sign

    def carried_block(self, name: ast.Name, definitions: list):
        split = self._split(name, definitions)
        if split is None:
            return None
        start, update, loop = split
        value = update.value if isinstance(update, ast.Assign) else None
        if not (isinstance(value, ast.Call) and self.ctx.call_name(value) == triton.ADVANCE):
            return None
        base = signature_argument(value, triton.SIGNATURES[triton.ADVANCE], "base")
        if not (isinstance(base, ast.Name) and base.id == name.id) or start.value is None:
            return None
        found = self.iteration(loop)
        if found is None:
            return None
        return start.value, signature_argument(value, triton.SIGNATURES[triton.ADVANCE], "offsets"), found[0]

    def _split(self, name: ast.Name, definitions: list):
        """``(start binding, step statement, loop)`` when one binding is an unconditional statement
        of a loop around ``name`` and the other is outside that loop."""
        ctx = self.ctx
        for update, start in (definitions, definitions[::-1]):
            loop = ctx.parent(update.node)
            if not isinstance(loop, ast.For) or update.node not in loop.body:
                continue
            if not any(a is loop for a in ctx.ancestors(name)):
                continue
            if any(a is loop for a in ctx.ancestors(start.node)):
                continue
            if ctx.function_of(loop) is not self.kernel.node:
                continue
            return start, update.node, loop
        return None

    def _start(self, start, depth: int) -> Poly | None:
        node = start.node
        if isinstance(node, ast.arg):
            return self._parameter(node) if id(node) in self._params else None
        if start.kind == "assign" and start.value is not None:
            return self.value(start.value, depth + 1)
        return None


def _increment(statement: ast.stmt, name: str) -> tuple[ast.expr, int] | None:
    """``(d, sign)`` of ``name += d``, ``name -= d``, ``name = name + d`` or ``name = d + name``."""
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) \
            and statement.target.id == name and isinstance(statement.op, (ast.Add, ast.Sub)):
        return statement.value, 1 if isinstance(statement.op, ast.Add) else -1
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id == name:
        value = statement.value
        if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)):
            if isinstance(value.left, ast.Name) and value.left.id == name:
                return value.right, 1 if isinstance(value.op, ast.Add) else -1
            if isinstance(value.op, ast.Add) and isinstance(value.right, ast.Name) and value.right.id == name:
                return value.left, 1
    return None
