"""Check many files: per-file rule sets from the config, in parallel processes."""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from kernelint.config import Settings, codes_for_file, selected_codes
from kernelint.engine import Options, check_file
from kernelint.findings import Finding
from kernelint.rules import all_rules

#: Below this many files, starting worker processes costs more than it saves.
_PARALLEL_THRESHOLD = 32


def _check_one(job: tuple[str, Options]) -> list[Finding]:
    path, options = job
    return check_file(path, options)


def check_paths(files: list[str], settings: Settings, jobs: int) -> list[Finding]:
    rules = all_rules()
    selected = selected_codes(settings, rules)
    work = [
        (path, Options(codes_for_file(settings, selected, Path(path), rules), settings.target_arch))
        for path in files
    ]
    if jobs <= 1 or len(work) < _PARALLEL_THRESHOLD:
        results = map(_check_one, work)
        return sorted(f for batch in results for f in batch)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        chunk = max(1, len(work) // (jobs * 8))
        return sorted(f for batch in pool.map(_check_one, work, chunksize=chunk) for f in batch)
