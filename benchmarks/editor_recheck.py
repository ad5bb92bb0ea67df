"""One file re-checked after an edit, as the editor server does it, on real files (issue 19's
"one-file check from an editor" target, 150 ms).

A warm process first: the project index is prepared and the file checked once, which reads the
neighbouring modules it needs. Then the file is checked again ``--runs`` times, each time with a
comment appended (a new text, so nothing of the file's own model is reused), and the wall time
of each check is taken. Prints the median and the maximum per file.

    python benchmarks/editor_recheck.py /work/corpus/mamba/mamba_ssm/ops/triton/ssd_chunk_scan.py ...

``benchmarks/editor_latency.py`` times the editor integrations end to end on a generated file;
this one times the engine on the files users have.
"""
from __future__ import annotations

import argparse
import statistics
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)

    from kernelint import engine
    from kernelint.model.project import index
    from kernelint.rules import all_rules

    options = engine.Options(frozenset(r.code for r in all_rules() if r.default_enabled))
    print("| file | lines | median | max |\n|---|---|---|---|")
    for path in args.files:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        index.prepare([path])
        engine.check_source(path, source, options)  # the warm process
        times = []
        for run in range(args.runs):
            edited = source + f"\n# edit {run}\n"
            start = time.perf_counter()
            engine.check_source(path, edited, options)
            times.append((time.perf_counter() - start) * 1000)
        print(f"| {path} | {source.count(chr(10)):,} | {statistics.median(times):.0f} ms | {max(times):.0f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
