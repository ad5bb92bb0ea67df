"""Check many files: per-file rule sets from the config, the on-disk cache, parallel processes."""
from __future__ import annotations

import gc
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from kernelint.cache import Cache, cache_directory, config_key, digest
from kernelint.config import Settings, codes_for_file, selected_codes
from kernelint.engine import Options, check_file, check_source, decode
from kernelint.findings import Finding
from kernelint.rules import all_rules

#: Below this many files to check, starting worker processes costs more than it saves.
_PARALLEL_THRESHOLD = 32

#: (path, options, config key or None when not caching)
_Job = tuple[str, Options, "str | None"]


def _check_one(job: _Job) -> tuple[str | None, list[Finding]]:
    """Findings of one file, and the cache digest of the bytes they were computed from.

    The collector is paused while the file is checked and then run over the young generation
    only: a parsed tree is one big cycle (parent links), and letting automatic collections
    trace it again and again while it is built cost about a fifth of the CPU time on the corpus.
    """
    path, options, key = job
    enabled = gc.isenabled()
    gc.disable()
    try:
        if key is None:
            return None, check_file(path, options)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None, check_file(path, options)  # reports the read error; not cached
        return digest(key, data), check_source(path, decode(data), options)
    finally:
        gc.collect(0)
        if enabled:
            gc.enable()


def _run(jobs_to_run: list[_Job], jobs: int):
    if jobs <= 1 or len(jobs_to_run) < _PARALLEL_THRESHOLD:
        yield from map(_check_one, jobs_to_run)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        chunk = max(1, len(jobs_to_run) // (jobs * 8))
        yield from pool.map(_check_one, jobs_to_run, chunksize=chunk)


def check_groups(groups: dict[Settings, list[str]], jobs: int, use_cache: bool = True) -> list[Finding]:
    """Findings of every file, each group under its own settings, sorted. One worker pool and
    one cache for the whole run, however many configs the files fall under."""
    rules = all_rules()
    work: list[tuple[str, Options]] = []
    for settings, files in groups.items():
        selected = selected_codes(settings, rules)
        work.extend(
            (path, Options(codes_for_file(settings, selected, Path(path), rules), settings.target_arch))
            for path in files
        )
    if not use_cache:
        results = _run([(path, options, None) for path, options in work], jobs)
        return sorted(f for _, batch in results for f in batch)

    cache = Cache(cache_directory())
    keys: dict[Options, str] = {}
    findings: list[Finding] = []
    misses: list[_Job] = []
    for path, options in work:
        key = keys.get(options)
        if key is None:
            key = keys[options] = config_key(options.codes, options.target_arch)
        if cache.has(path):  # only then is reading the file here worth it
            try:
                with open(path, "rb") as handle:
                    cached = cache.get(path, digest(key, handle.read()))
            except OSError:
                cached = None
            if cached is not None:
                findings.extend(cached)
                continue
        misses.append((path, options, key))
    for (path, _, _), (file_digest, batch) in zip(misses, _run(misses, jobs)):
        if file_digest is not None:
            cache.put(path, file_digest, batch)
        findings.extend(batch)
    cache.save()
    return sorted(findings)
