"""Does dispatch stay fast as rules are added? Time the engine on a corpus with the original 12
code rules (+ the 3 tool rules) and again with 48 stand-in rules added, so 60 code rules in all.

    python benchmarks/dispatch.py /work/corpus/FlagGems /work/corpus/quack ...

Stand-ins are registered for this process only. Each declares the node types real rules declare
(calls mostly, some subscripts, binary operations and loops) and asks the model what a real rule
asks first (the enclosing kernel, the call's qualified name), so the measurement is of dispatch
and shared-model cost, not of any rule's own analysis. One process, CPU time, best of N rounds.
"""
from __future__ import annotations

import argparse
import ast
import gc
import time
from pathlib import Path

import kernelint.engine as engine
import kernelint.rules as rules
from kernelint.engine import Options, check_source, decode
from kernelint.findings import Severity

ORIGINAL = ("KL001", "KL002", "KL003", "KL101", "KL102", "KL104", "KL105", "KL107", "KL108",
            "KL201", "KL202", "KL205", "KL301", "KL302", "KL303")
_NODE_TYPES = ((ast.Call,), (ast.Call,), (ast.Call,), (ast.Subscript,), (ast.BinOp,), (ast.For, ast.While))
_DSLS = ("triton", "triton", "cute", "cutile")


def stand_in(index: int) -> type[rules.Rule]:
    dsl = _DSLS[index % len(_DSLS)]

    class StandIn(rules.Rule):
        code = f"KL{900 + index:03d}"
        name = f"stand-in-{index}"
        family = "benchmark"
        severity = Severity.INFO
        evidence_class = "perf"
        summary = "benchmark stand-in"
        doc = ""
        node_types = _NODE_TYPES[index % len(_NODE_TYPES)]

        def check(self, node, ctx):
            if ctx.kernel_of(node, self.dsl) is not None and isinstance(node, ast.Call):
                ctx.call_name(node)
            return ()

    StandIn.dsl = dsl
    return StandIn


def sources(roots: list[Path]) -> list[tuple[str, str]]:
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            text = decode(path.read_bytes())
            if engine.might_hold_kernels(text):
                found.append((str(path), text))
    return found


def run(files: list[tuple[str, str]], codes: frozenset[str], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        start = time.process_time()
        for path, text in files:
            check_source(path, text, Options(codes))
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--extra", type=int, default=48, help="stand-in rules to add (default 48)")
    args = parser.parse_args()
    files = sources(args.roots)
    real = rules.all_rules()
    extra = tuple(stand_in(i) for i in range(args.extra))
    base = run(files, frozenset(ORIGINAL), args.rounds)
    rules.all_rules = lambda: real + extra  # type: ignore[assignment]
    engine.all_rules = rules.all_rules
    grown = run(files, frozenset(ORIGINAL) | {r.code for r in extra}, args.rounds)
    lines = sum(text.count("\n") for _, text in files)
    print(f"files naming a DSL: {len(files)}, lines: {lines:,}")
    print(f"12 code rules: {base:.2f} CPU s; 12 + {args.extra} stand-ins: {grown:.2f} CPU s; "
          f"ratio {grown / base:.2f}x (target <= 1.30x)")


if __name__ == "__main__":
    main()
