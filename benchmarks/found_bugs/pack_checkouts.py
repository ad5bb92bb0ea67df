"""Copy, from full checkouts, only what the confirmations import (each finding's top-level
package, or its one file), with a ``COMMIT`` file, into a folder small enough to carry to a GPU
machine that cannot reach the repositories. The copies are never committed: keep the folder
git-ignored.

    python benchmarks/found_bugs/pack_checkouts.py --corpus /work/corpus --commits /work/corpus/COMMITS --out .found-bugs-corpus

``--commits`` is a file of ``owner+name <commit>`` lines (checkouts without ``.git``); a checkout
with ``.git`` gives its own ``git rev-parse HEAD``."""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from run_all import HERE, bug_of


def imported_part(bug: dict) -> Path:
    """What the confirmation imports: the package that holds the file, or the file alone."""
    parts = Path(bug["file"]).parts
    if not bug.get("as_package"):
        return Path(bug["file"])
    return Path(*parts[:2]) if parts[0] == "src" else Path(parts[0])


def commit_of(repo: Path, listed: dict[str, str]) -> str | None:
    if (repo / ".git").exists():
        return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    return listed.get(repo.name)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--commits", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--extra", action="store_true", help="also the packages of confirm_all.py's EXTRA findings")
    args = parser.parse_args()
    listed = {}
    if args.commits:
        for line in args.commits.read_text(encoding="utf-8").splitlines():
            if line.strip():
                name, commit = line.split()
                listed[name.split("+", 1)[-1]] = commit
    for script in sorted(HERE.glob("*__*.py")):
        bug = bug_of(script)
        name = bug.get("repo_dir", bug["repo"].split("/")[-1])
        repo, target = args.corpus / name, args.out / name
        if not repo.is_dir():
            print(f"{script.name}: no checkout {repo}", file=sys.stderr)
            continue
        part = imported_part(bug)
        source, destination = repo / part, target / part
        if source.is_dir():
            shutil.copytree(source, destination, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.cu", "*.cpp", "*.h"))
        else:
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
        commit = commit_of(repo, listed)
        if commit:
            (target / "COMMIT").write_text(commit + "\n", encoding="utf-8")
        copy_markers(repo, target)
        print(f"{script.name}: {part} of {name} @ {commit}")
    if args.extra:
        from confirm_all import EXTRA

        for where, _ in EXTRA:
            name, relative = where.split("/", 1)
            relative = relative.rsplit(":", 2)[0]
            repo, target = args.corpus / name, args.out / name
            top = Path(relative).parts[0]
            part = Path(top) if (repo / top / "__init__.py").is_file() else Path(relative)
            if (repo / part).is_dir():
                shutil.copytree(repo / part, target / part, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.cu", "*.cpp", "*.h"))
            else:
                (target / part).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(repo / part, target / part)
            commit = commit_of(repo, listed)
            if commit:
                (target / "COMMIT").write_text(commit + "\n", encoding="utf-8")
            copy_markers(repo, target)
            print(f"{where}: {part} of {name} @ {commit}")
    return 0


def copy_markers(repo: Path, target: Path) -> None:
    """The project's root markers: ``kernelint confirm`` finds the project root (and so the
    module's dotted name) by them. Also the project's tests (Python files only, about 1 MB a
    repository): ``confirm`` reads a shape or a number the entry leaves open from the project's
    own calls of it, often in a test (fla's ``A_log = torch.randn(H)``), so the copy must hold them
    for the harness generated on the GPU machine to be the one generated from the checkout."""
    for marker in ("pyproject.toml", "setup.py", "setup.cfg"):
        if (repo / marker).is_file():
            shutil.copy2(repo / marker, target / marker)
    for tests in ("tests", "test"):
        if (repo / tests).is_dir():
            shutil.copytree(repo / tests, target / tests, dirs_exist_ok=True,
                            ignore=lambda folder, names: [n for n in names if not n.endswith(".py")
                                                          and not (Path(folder) / n).is_dir()])


if __name__ == "__main__":
    sys.exit(main())
