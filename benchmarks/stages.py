"""Where kernelint's cold time goes, stage by stage, in one process (CPU seconds).

    python benchmarks/stages.py /work/corpus/*

Mirrors ``engine.check_source`` with a clock around each stage: pre-filter, parse, import gate,
model, rules (each rule timed on its own), taking the model apart, and the per-file
young-generation collection.
Use ``python -m cProfile`` on the same loop for function-level detail.
"""
from __future__ import annotations

import argparse
import ast
import gc
import time
import warnings
from collections import Counter
from pathlib import Path

from kernelint import engine
from kernelint.config import load_settings, selected_codes
from kernelint.discovery import discover
from kernelint.model import FileContext
from kernelint.model.core.names import ImportTable
from kernelint.rules import all_rules


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directories", nargs="+", type=Path)
    parser.add_argument("--select", default=None, help="codes, as for `kernelint check` (default: default-on)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    settings = load_settings(Path.cwd())
    if args.select:
        settings = settings.overridden(select=tuple(args.select.split(",")))
    files, _ = discover([str(d) for d in args.directories], settings)
    codes = selected_codes(settings, all_rules())
    candidates = [r for r in all_rules() if r.code in codes and r.code not in engine._TOOL_CODES]
    stages: Counter = Counter()
    per_rule: Counter = Counter()
    parsed = modelled = 0

    def timed(stage, fn, *a):
        start = time.process_time()
        result = fn(*a)
        stages[stage] += time.process_time() - start
        return result

    begin = time.process_time()
    for path in files:
        gc.disable()
        source = timed("read + decode", lambda p: engine.decode(Path(p).read_bytes()), path)
        if timed("pre-filter", engine.might_import_a_dsl, source):
            try:
                tree = timed("ast.parse", ast.parse, source)
            except SyntaxError:
                tree = None
            if tree is not None:
                parsed += 1
                imports = timed("import gate", ImportTable.from_tree, tree)
                rules = timed("import gate", engine._applicable, imports, candidates)
                if rules:
                    modelled += 1
                    wanted = {t for r in rules for t in r.node_types}
                    ctx = timed("model (one walk, scopes, kernels)", FileContext, path, source, tree, wanted, imports)
                    for rule_class in rules:
                        start = time.process_time()
                        try:
                            engine.rule_findings(path, rule_class, ctx)
                        except Exception:  # counted as time spent; the engine reports it as KL002
                            pass
                        spent = time.process_time() - start
                        stages["rules"] += spent
                        per_rule[rule_class.code] += spent
                    timed("taking the model and tree apart", ctx.dismantle, True)  # as the engine does
                    del ctx
                del tree
        timed("young-generation collection", gc.collect, 0)
        gc.enable()
    total = time.process_time() - begin
    print(f"{len(files)} files, {parsed} parsed, {modelled} modelled; {total:.2f} s CPU in one process\n")
    print("| stage | CPU s | share |\n|---|---|---|")
    for stage, spent in stages.most_common():
        print(f"| {stage} | {spent:.2f} | {spent / total:.0%} |")
    print("\n| rule | CPU s |\n|---|---|")
    for code, spent in per_rule.most_common():
        print(f"| {code} | {spent:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
