"""Seconds the parent of a parallel run spends before its workers fork (issue 19).

Runs ``kernelint check PATHS --no-cache -j2`` in this process and stops it where the workers
would start (``runner._parallel``), timing the wall-clock seconds of the parts the workers wait
for: the walk (``discovery.discover``), grouping the files by configuration (``cli._by_config``),
each file's target versions and the project index (``project.index.prepare``, which waits for a
helper process that builds about half of it, so its CPU time would say too little). Works on older
checkouts too (run it with ``PYTHONPATH`` naming one), which time target versions through
``runner.targets_for_settings``.

    python benchmarks/serial_start.py /work/corpus/*/ [--rounds 3]
"""
from __future__ import annotations

import argparse
import time


class _Stop(BaseException):  # not caught by the CLI's "internal error" handler
    pass


def _one_run(paths: list[str]) -> dict[str, float]:
    from kernelint import cli, discovery, runner, versions
    from kernelint.model.project import index as project_index

    spent: dict[str, float] = {}

    def timed(name, function):
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
        return wrapper

    def stop(jobs, workers):
        raise _Stop

    saved = [(discovery, "discover"), (cli, "_by_config"), (project_index, "prepare"), (runner, "_parallel"),
             (runner, "targets_for_settings")]
    saved = [(owner, name, getattr(owner, name, None)) for owner, name in saved]
    batch = getattr(versions, "TargetsOfBatch", None)
    batch_call = batch.__call__ if batch is not None else None
    discovery.discover = timed("discover", discovery.discover)
    cli._by_config = timed("group by config", cli._by_config)
    if batch is not None:
        batch.__call__ = timed("target versions", batch_call)
    else:
        runner.targets_for_settings = timed("target versions", runner.targets_for_settings)
    project_index.prepare = timed("project index", project_index.prepare)
    runner._parallel = stop
    start = time.perf_counter()
    try:
        cli.main(["check", *paths, "--no-cache", "--exit-zero", "-j2"])
    except _Stop:
        pass
    spent["to the fork"] = time.perf_counter() - start
    for owner, name, value in saved:
        if value is not None:
            setattr(owner, name, value)
    if batch is not None:
        batch.__call__ = batch_call
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--rounds", type=int, default=3, help="separate processes, each timed once")
    args = parser.parse_args()
    if args.rounds > 1:  # each round in a fresh process: nothing cached from the round before
        import subprocess
        import sys

        for _ in range(args.rounds):
            flags = [flag for flag, on in (("-S", sys.flags.no_site), ("-P", getattr(sys.flags, "safe_path", False))) if on]
            subprocess.run([sys.executable, *flags, sys.argv[0], "--rounds", "1", *args.paths], check=True)
        return
    spent = _one_run(args.paths)
    print("  ".join(f"{name} {seconds:.3f}" for name, seconds in spent.items()), flush=True)


if __name__ == "__main__":
    main()
