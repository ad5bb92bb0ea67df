"""Time kernelint against flake8, pylint and ruff on the same files, in whole processes.

    python benchmarks/speed.py /work/corpus/*                  # prints a markdown report

The file set is what ``kernelint check`` discovers in the given directories. It is copied
(hard links where possible) into a scratch workspace, N times for the N x growth runs, so every
tool reads the same files, no repository config changes what a tool checks, and nothing is
written into the checkouts. Every command runs under a small wrapper that reports its wall time,
its CPU time and the peak resident memory of its largest process (``getrusage`` of the waited
children). Rates are per wall second; CPU seconds are shown as well because a shared machine
makes wall time noisy. pylint is slow on large trees, so it runs on a deterministic ``--subset``
of kernel files and its rows are per file of that subset.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: Runs argv[1:], then prints wall seconds, CPU seconds and peak RSS (KiB) of the children.
_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss, "code": code}))
"""

#: CPython's own floor: parse and walk every file, one process, one core.
_FLOOR = """
import ast, sys, warnings
warnings.simplefilter("ignore")
for path in open(sys.argv[1], encoding="utf-8").read().splitlines():
    try:
        tree = ast.parse(open(path, "rb").read(), filename=path)
    except (SyntaxError, ValueError):
        continue
    for node in ast.walk(tree):
        pass
"""

#: flake8 with kernelint's entry point hidden: flake8's own default checks, nothing added.
_FLAKE8_WITHOUT_PLUGIN = """
import sys
import flake8.plugins.finder as finder
found = finder._find_importlib_plugins
finder._find_importlib_plugins = lambda: (p for p in found() if not p.entry_point.value.startswith("kernelint"))
from flake8.main.cli import main
sys.exit(main())
"""


@dataclass
class Timing:
    name: str
    files: int
    lines: int
    wall: float
    cpu: float
    rss_mb: float
    code: int

    def row(self) -> list[str]:
        return [self.name, str(self.files), f"{self.lines:,}", f"{self.wall:.2f}", f"{self.cpu:.2f}",
                f"{self.files / self.wall:,.0f}", f"{self.lines / self.wall:,.0f}", f"{self.rss_mb:.0f}"]


def measure(name: str, argv: list[str], files: int, lines: int, cwd: Path, env=None, repeat: int = 1) -> Timing:
    """Best of ``repeat`` runs of ``argv`` (a fresh wrapper process each)."""
    best = None
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True, text=True,
                             cwd=cwd, env=env, check=True)
        data = json.loads(out.stdout)
        if best is None or data["wall"] < best["wall"]:
            best = data
    timing = Timing(name, files, lines, best["wall"], best["cpu"], best["rss"] / 1024, best["code"])
    print(f"  {name}: {timing.wall:.2f} s wall, {timing.cpu:.2f} s CPU, exit {timing.code}", file=sys.stderr)
    return timing


def discover(directories: list[Path]) -> list[tuple[Path, Path]]:
    """(checkout, file) for every file kernelint checks in the checkouts."""
    from kernelint.config import load_settings
    from kernelint.discovery import discover as kernelint_discover

    pairs = []
    for directory in directories:
        files, _ = kernelint_discover([str(directory)], load_settings(directory))
        pairs.extend((directory, Path(f)) for f in files)
    return pairs


#: What makes a folder a project root for kernelint (``model/project/index.py``): copied with the
#: files (an empty ``.git`` folder for a checkout's repository), so each copy of a checkout is
#: one project with its pins, as the checkout is, and the cross-module analysis runs as it would.
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


def _markers_in(directory: Path) -> list[Path]:
    found = [directory / ".git"] if (directory / ".git").exists() else []
    for folder, subfolders, names in os.walk(directory):
        subfolders[:] = [d for d in subfolders if d != ".git"]
        found.extend(Path(folder) / name for name in names if name in _PROJECT_MARKERS)
    return found


def build_workspace(pairs, root: Path, copies: int) -> list[Path]:
    """``root/c<i>/<repo>/<path>`` for i < copies, with each checkout's project markers;
    returns the copy roots."""
    roots = []
    markers = [(directory, marker) for directory in sorted({d for d, _ in pairs}) for marker in _markers_in(directory)]
    for i in range(copies):
        copy_root = root / f"c{i}"
        for directory, path in [*pairs, *markers]:
            target = copy_root / directory.name / path.relative_to(directory)
            target.parent.mkdir(parents=True, exist_ok=True)
            if path.name == ".git":
                target.mkdir(exist_ok=True)
                continue
            if target.exists():
                continue
            try:
                os.link(path, target)
            except OSError:
                shutil.copyfile(path, target)
        roots.append(copy_root)
    return roots


def files_under(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py*") if p.suffix in (".py", ".pyi") and p.is_file())


def has_kernel(path: Path) -> bool:
    from kernelint.engine import might_hold_kernels

    return might_hold_kernels(path.read_bytes().decode("utf-8", errors="replace"))


def pylint_symbols() -> list[str]:
    from kernelint.rules import all_rules, pylint_message

    return [pylint_message(rule)[1] for rule in all_rules() if rule.code != "KL001"]


def plugin_available(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("met" if ok else "**not met**")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directories", nargs="+", type=Path)
    parser.add_argument("--jobs", "-j", type=int, default=2, help="processes for kernelint, flake8, pylint (default 2)")
    parser.add_argument("--subset", type=int, default=20, help="kernel files for the pylint runs (default 20)")
    parser.add_argument("--scales", default="1,2,4", help="corpus multiples for the growth runs (default 1,2,4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the fast commands; the best counts (default 3)")
    parser.add_argument("--skip", default="", help="comma-separated: flake8, pylint, ruff, growth")
    args = parser.parse_args(argv)
    skip = set(filter(None, args.skip.split(",")))
    scales = sorted({int(s) for s in args.scales.split(",")} | {1})

    directories = [d.resolve() for d in args.directories]
    pairs = discover(directories)
    scratch = Path(tempfile.mkdtemp(prefix="kernelint-speed-"))
    try:
        return _run(args, skip, scales, pairs, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run(args, skip, scales, pairs, scratch: Path) -> int:
    py = sys.executable
    roots = build_workspace(pairs, scratch / "ws", max(scales))
    files = files_under(roots[0])
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    n = len(files)
    listing = scratch / "files.txt"
    listing.write_text("\n".join(map(str, files)), encoding="utf-8")
    cwd = scratch / "run"  # no config files here: every tool runs with its defaults
    cwd.mkdir()
    env = {**os.environ, "KERNELINT_CACHE_DIR": str(scratch / "cache")}
    paths = [str(p) for p in files]
    jobs = str(args.jobs)
    print(f"{n} files, {lines:,} lines; measuring...", file=sys.stderr)

    results: dict[str, Timing] = {}

    def run(key, name, argv, count=n, nlines=lines, repeat=1):
        results[key] = measure(name, argv, count, nlines, cwd, env, repeat)

    run("floor", "CPython ast.parse + ast.walk (1 process)", [py, "-c", _FLOOR, str(listing)])
    run("cold", f"kernelint check --no-cache (-j {jobs})",
        [py, "-m", "kernelint", "check", "--no-cache", "--exit-zero", "-j", jobs, str(roots[0])])
    run("fill", f"kernelint check, cache being written (-j {jobs})",
        [py, "-m", "kernelint", "check", "--exit-zero", "-j", jobs, str(roots[0])])
    run("warm", "kernelint check, warm cache", [py, "-m", "kernelint", "check", "--exit-zero", "-j", jobs, str(roots[0])],
        repeat=args.repeat)
    if "ruff" not in skip and shutil.which("ruff"):
        run("ruff", "ruff check --no-cache", ["ruff", "check", "--no-cache", "--isolated", "--exit-zero", "-q", *paths],
            repeat=args.repeat)
    flake8_plugin = plugin_available("kernelint.flake8_plugin")
    if "flake8" not in skip:
        run("flake8", f"flake8 default checks, no plugin (-j {jobs})",
            [py, "-c", _FLAKE8_WITHOUT_PLUGIN, "--isolated", "--exit-zero", "-j", jobs, *paths])
        if flake8_plugin:
            run("flake8+kl", f"flake8 default checks + kernelint plugin (-j {jobs})",
                [py, "-m", "flake8", "--isolated", "--exit-zero", "-j", jobs, *paths])
            run("flake8-kl", f"flake8 --select KL (-j {jobs})",
                [py, "-m", "flake8", "--isolated", "--exit-zero", "--select", "KL", "-j", jobs, *paths])
    pylint_plugin = plugin_available("kernelint.pylint_plugin")
    if "pylint" not in skip:
        kernel_files = [p for p in files if has_kernel(p)]
        kernel_files.sort(key=lambda p: hashlib.sha256(str(p.relative_to(roots[0])).encode()).hexdigest())
        subset = sorted(kernel_files[:args.subset])
        sub_lines = sum(p.read_bytes().count(b"\n") for p in subset)
        sub = [str(p) for p in subset]
        common = [py, "-m", "pylint", "--rcfile=/dev/null", "--exit-zero", "-j", jobs, "--score=n"]
        run("pylint", f"pylint default checks (subset, -j {jobs})", [*common, *sub], len(sub), sub_lines)
        if pylint_plugin:
            load = "--load-plugins=kernelint.pylint_plugin"
            run("pylint+kl", "pylint default checks + kernelint plugin (subset)", [*common, load, *sub],
                len(sub), sub_lines)
            run("pylint-kl", "pylint kernelint messages only (subset)",
                [*common, load, "--disable=all", "--enable=" + ",".join(pylint_symbols()), *sub],
                len(sub), sub_lines)
    growth = []
    if "growth" not in skip:
        for scale in scales:
            if scale == 1:
                growth.append((1, results["cold"]))
                continue
            timing = measure(f"kernelint check --no-cache, {scale}x corpus",
                             [py, "-m", "kernelint", "check", "--no-cache", "--exit-zero", "-j", jobs,
                              *map(str, roots[:scale])], n * scale, lines * scale, cwd, env)
            growth.append((scale, timing))

    report(args, results, growth, n, lines, flake8_plugin, pylint_plugin)
    return 0


def report(args, results, growth, n, lines, flake8_plugin, pylint_plugin) -> None:
    header = ["command", "files", "lines", "wall s", "CPU s", "files/s", "lines/s", "peak MB"]
    rows = [t.row() for t in results.values()] + [t.row() for scale, t in growth if scale != 1]
    print(f"## kernelint speed: {n} files, {lines:,} lines\n")
    print(table(header, rows))

    def ratio(a, b, field="wall"):
        if a not in results or b not in results:
            return None
        return getattr(results[a], field) / getattr(results[b], field)

    def fmt(x, pct=False):
        return "n/a" if x is None else (f"{(x - 1) * 100:+.0f}%" if pct else f"{x:.2f}x")

    def both(a, b, pct=False):
        """Wall ratio (what the target is about), with the CPU-time ratio, steadier on a busy machine."""
        wall = ratio(a, b)
        return "n/a" if wall is None else f"{fmt(wall, pct)} (CPU {fmt(ratio(a, b, 'cpu'), pct)})"

    cold_flake8 = ratio("cold", "flake8")
    cold_floor = ratio("cold", "floor")
    warm_ruff = ratio("warm", "ruff")
    flake8_add = ratio("flake8+kl", "flake8")
    pylint_add = ratio("pylint+kl", "pylint")
    peak = max([results[k].rss_mb for k in ("cold", "fill", "warm")] + [t.rss_mb for _, t in growth])
    per_line = [t.wall / t.lines for _, t in growth]
    spread = max(per_line) / min(per_line) if per_line else None
    targets = [
        ["kernelint cold / flake8 default", both("cold", "flake8"), "<= 0.20x",
         verdict(None if cold_flake8 is None else cold_flake8 <= 0.2)],
        ["kernelint warm / ruff cold", both("warm", "ruff"), "<= 1.20x",
         verdict(None if warm_ruff is None else warm_ruff <= 1.2)],
        ["flake8 plugin adds to flake8 default", both("flake8+kl", "flake8", pct=True) if flake8_plugin else "plugin missing",
         "<= +15%", verdict(None if flake8_add is None else flake8_add <= 1.15)],
        ["pylint plugin adds to pylint default", both("pylint+kl", "pylint", pct=True) if pylint_plugin else "plugin missing",
         "<= +10%", verdict(None if pylint_add is None else pylint_add <= 1.10)],
        ["kernelint peak memory (largest process)", f"{peak:.0f} MB", "< 300 MB", verdict(peak < 300)],
        ["kernelint time per line, largest / smallest over " + "/".join(f"{s}x" for s, _ in growth),
         fmt(spread), "linear (about 1x)", verdict(None if spread is None else spread <= 1.25)],
        ["kernelint cold / CPython parse+walk floor (the floor uses one core; issue 19, whole corpus)", both("cold", "floor"),
         "<= 0.90x", verdict(None if cold_floor is None else cold_floor <= 0.9)],
    ]
    print("\n### Targets (wall-time ratio; CPU-time ratio in brackets)\n")
    print(table(["measure", "value", "target", "verdict"], targets))
    if growth:
        print("\n### Growth (kernelint cold)\n")
        print(table(["corpus", "lines", "wall s", "CPU s", "us per line"],
                    [[f"{s}x", f"{t.lines:,}", f"{t.wall:.2f}", f"{t.cpu:.2f}", f"{t.wall / t.lines * 1e6:.1f}"]
                     for s, t in growth]))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nPython {platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.1f} at the end; "
          f"`python benchmarks/speed.py {' '.join(sys.argv[1:])}`")


if __name__ == "__main__":
    raise SystemExit(main())
