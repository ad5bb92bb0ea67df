"""One file re-checked after an edit, as the editor server does it, on real files (issue 19's
"one-file check from an editor" target, 150 ms).

A warm process first: the project index is prepared and the file checked once, which reads the
neighbouring modules it needs. Then the file is checked again ``--runs`` times, each time with an
edit, and the wall time of each check is taken. Prints the median and the maximum per file.

Per-kernel findings are kept between checks as the language server keeps them
(``kernelint/reuse.py``); ``--fresh`` keeps nothing, as a batch run: every kernel is analysed
again, the cost of a cold one-file check. ``--edit end`` (the default) appends a comment line,
which no kernel reads. ``--edit kernel`` puts a comment at the end of a line in the body of the
file's middle ``@jit`` function, what typing in one kernel does: only that kernel and the kernels
it calls or is called by run the per-kernel rules again. ``--edit host`` does the same in the
host function that launches that kernel: the kernels whose launches, callers or constants that
function is part of run again (``kernelint/host_units.py``). ``--edit line`` adds a line in the
kernel in every other edit and takes it away in the next: every position after it moves, so the
kernels with findings run again too. ``--edit every`` imports ``tl`` again after the imports (then
not), which every kernel reads: all of them run again. This process never forks; the server shares such a
whole check with a forked child (``kernelint/kernel_split.py``), so time that with
``editor_latency.py --files``.

    python benchmarks/editor_recheck.py /work/corpus/mamba/mamba_ssm/ops/triton/ssd_chunk_scan.py ...
    python benchmarks/editor_recheck.py FILE --by-rule     # where one re-check's time goes

``--by-rule`` re-checks as the engine does (parse, model, each applicable rule in the engine's
order) with a clock around each step, and prints the mean per step. A rule that runs first pays
for model facts later rules share, so compare a rule with itself across checkouts.

``benchmarks/editor_latency.py`` times the editor integrations end to end on a generated file;
this one times the engine on the files users have.
"""
from __future__ import annotations

import argparse
import statistics
import time

from editor_latency import edit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--by-rule", action="store_true", help="time parse, model and each rule (means)")
    parser.add_argument("--edit", choices=("end", "kernel", "line", "host", "every"), default="end",
                        help="append a comment line, edit one kernel's body or its launcher's, add and "
                             "remove a line in the kernel, or import tl again (every kernel reads it)")
    parser.add_argument("--fresh", action="store_true", help="keep nothing between checks (every kernel again)")
    args = parser.parse_args(argv)

    from kernelint import engine
    from kernelint.model.project import index
    from kernelint.rules import all_rules

    options = engine.Options(frozenset(r.code for r in all_rules() if r.default_enabled))
    if args.by_rule:
        for path in args.files:
            _by_rule(path, options, args.runs, args.edit, not args.fresh)
        return 0
    engine.keep_kernel_findings(not args.fresh)
    print("| file | lines | median | max |\n|---|---|---|---|")
    for path in args.files:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        index.prepare([path])
        engine.check_source(path, source, options)  # the warm process
        times = []
        for run in range(args.runs):
            edited = edit(source, run, args.edit)
            start = time.perf_counter()
            engine.check_source(path, edited, options)
            times.append((time.perf_counter() - start) * 1000)
        print(f"| {path} | {source.count(chr(10)):,} | {statistics.median(times):.0f} ms | {max(times):.0f} ms |")
    return 0


def _by_rule(path: str, options, runs: int, where: str, keep: bool) -> None:
    import ast
    import gc
    from collections import Counter

    from kernelint import engine
    from kernelint.model import FileContext
    from kernelint.model.core.names import ImportTable
    from kernelint.model.project import index

    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    index.prepare([path])
    engine.keep_kernel_findings(keep)
    engine.check_source(path, source, options)  # the warm process
    spent: Counter = Counter()
    selected = engine._selected(options.codes)
    for run in range(runs):
        edited = edit(source, run, where)
        gc.disable()
        start = time.perf_counter()
        tree = ast.parse(edited, path)
        spent["parse"] += time.perf_counter() - start
        start = time.perf_counter()
        imports = ImportTable.from_tree(tree)
        rules = engine._applicable(imports, selected)
        ctx = FileContext(path, edited, tree, {t for r in selected for t in r.node_types}, imports,
                          options.target_sm, options.target_versions)
        spent["model"] += time.perf_counter() - start
        start = time.perf_counter()
        kept = engine._KEPT.for_check(path, edited, tree, ctx.kernels, options) if engine._KEPT is not None else None
        spent["kept findings"] += time.perf_counter() - start
        for rule_class in rules:
            start = time.perf_counter()
            engine.rule_findings(path, rule_class, ctx, kept)
            spent[rule_class.code] += time.perf_counter() - start
        reads = ctx.project_reads()
        if kept is not None:
            kept.done(reads)
        gc.collect(0)
        gc.enable()
    print(f"{path}: {sum(spent.values()) / runs * 1000:.0f} ms a re-check\n| step | ms |\n|---|---|")
    for step, seconds in spent.most_common():
        if seconds / runs >= 0.0005:
            print(f"| {step} | {seconds / runs * 1000:.1f} |")


if __name__ == "__main__":
    raise SystemExit(main())
