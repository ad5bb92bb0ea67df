"""The on-disk cache: a file's findings, reused while nothing that decides them has changed.

An entry is keyed by the file's absolute path and a digest of everything its findings depend
on: the file's bytes, the effective config for that file (selected codes after per-file ignores,
target architecture), kernelint's version, a fingerprint of kernelint's own source files (so an
edited rule in a development install never serves old results) and the Python version (whose
``ast`` kernelint reads). Any change gives another digest, and the file is checked again.

All entries live in one JSON index, ``.kernelint_cache/index.json``, read once at the start and
written once at the end by the parent process only, through a temporary file and an atomic
rename: worker processes never touch it, and two kernelint runs at once cannot corrupt it (the
later rename wins; the other run's new entries are recomputed next time). Measured against one
small file per entry, the single index was faster warm (one read instead of one open per file)
and cold (no per-entry writes); see docs/performance.md. JSON, not pickle: a cache directory
can come with a cloned repository, and loading it must never run code.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
import time
from pathlib import Path

import kernelint
from kernelint.findings import Confidence, Edit, Fact, Finding, Fix, Severity, Site

DIRECTORY = ".kernelint_cache"
INDEX = "index.json"
#: Overrides where the cache lives (a directory), e.g. to keep it out of a read-only checkout.
ENV_DIRECTORY = "KERNELINT_CACHE_DIR"
_FORMAT = 4  # 2: a finding's fix is kept; 3: the facts from other files an entry read;
#   4: a finding's related sites, facts and cause
#: An index larger than this is ignored (and rewritten): about 300,000 files' entries.
MAX_INDEX_BYTES = 64 * 1024 * 1024
_STALE_TEMPORARY_S = 600


def cache_directory() -> Path:
    """``$KERNELINT_CACHE_DIR``; else ``.kernelint_cache`` in the config root of the working
    directory (where its nearest ``[tool.kernelint]`` lives), else in the working directory.
    One cache per run whatever paths are checked (entries are keyed by absolute path), and
    checking a read-only tree from elsewhere writes nothing into that tree."""
    from kernelint.config import find_pyproject

    override = os.environ.get(ENV_DIRECTORY)
    if override:
        return Path(override)
    pyproject = find_pyproject(Path.cwd())
    return (pyproject.parent if pyproject else Path.cwd()) / DIRECTORY


def fingerprint() -> str:
    """What makes one kernelint differ from another: version, Python, and the size and mtime of
    every source file of the package and its rules (cheap: a stat per file, no reads)."""
    from kernelint import checkers

    parts = [kernelint.__version__, sys.version, str(_FORMAT)]
    for directory in sorted({*kernelint.__path__, *checkers.__path__}):
        for root, dirs, names in os.walk(directory):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith(".py"):
                    stat = os.stat(os.path.join(root, name))
                    parts.append(f"{root}/{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=16).hexdigest()


def config_key(codes, target_arch: str | None, target_versions=None) -> str:
    """The effective config of a file: selected codes, target architecture and the DSL releases it
    targets (``kernelint.versions.Targets``; findings depend on them and name them)."""
    versions = target_versions.key() if target_versions is not None else ""
    return ",".join(sorted(codes)) + "|" + (target_arch or "") + "|" + versions


def digest(key: str, data: bytes) -> str:
    """The entry digest of one file's bytes under one effective config."""
    h = hashlib.blake2b(key.encode(), digest_size=16)
    h.update(b"\0")
    h.update(data)
    return h.hexdigest()


def _encode_fix(fix: Fix | None):
    if fix is None:
        return None
    return [fix.title, fix.safe, [[e.line, e.col, e.end_line, e.end_col, e.replacement] for e in fix.edits]]


def _encode_site(site: Site | None):
    if site is None:
        return None
    return [site.path, site.line, site.column, site.end_line, site.end_column, site.message]


def _encode(findings: list[Finding]) -> list[list]:
    return [[f.line, f.column, f.end_line, f.end_column, f.code, f.name, f.severity.value,
             f.confidence.value, f.message, _encode_fix(f.fix),
             [_encode_site(s) for s in f.related], [[fact.text, _encode_site(fact.site)] for fact in f.facts],
             f.cause] for f in findings]


def _position_ok(n) -> bool:
    return type(n) is int and 0 <= n < 1 << 31


def _fix_ok(fix) -> bool:
    if fix is None:
        return True
    if type(fix) is not list or len(fix) != 3:
        return False
    title, safe, edits = fix
    return (type(title) is str and type(safe) is bool and type(edits) is list and all(
        type(e) is list and len(e) == 5 and all(_position_ok(n) for n in e[:4]) and type(e[4]) is str
        for e in edits))


def _site_ok(site) -> bool:
    return (type(site) is list and len(site) == 6 and type(site[0]) is str
            and all(_position_ok(n) for n in site[1:5]) and type(site[5]) is str)


def _facts_ok(facts) -> bool:
    return type(facts) is list and all(
        type(fact) is list and len(fact) == 2 and type(fact[0]) is str and (fact[1] is None or _site_ok(fact[1]))
        for fact in facts)


def _row_ok(row) -> bool:
    """Whether one cached row is exactly what ``_encode`` writes: anything else (a null, a
    float, a string where a line number belongs, an unknown code) makes the entry a miss."""
    if type(row) is not list or len(row) != 13:
        return False
    line, column, end_line, end_column, code, name, severity, confidence, message, fix, related, facts, cause = row
    return (
        all(_position_ok(n) for n in (line, column, end_line, end_column))
        and all(type(t) is str for t in (code, name, severity, confidence, message))
        and severity in _SEVERITIES and confidence in _CONFIDENCES and code in _known_codes()
        and _fix_ok(fix)
        and type(related) is list and all(_site_ok(site) for site in related)
        and _facts_ok(facts) and (cause is None or type(cause) is str)
    )


def _decode_fix(fix) -> Fix | None:
    if fix is None:
        return None
    title, safe, edits = fix
    return Fix(title, tuple(Edit(*edit) for edit in edits), safe)


def _known_codes() -> frozenset[str]:
    from kernelint.rules import all_rules

    return frozenset(rule.code for rule in all_rules())


_SEVERITIES = frozenset(s.value for s in Severity)
_CONFIDENCES = frozenset(c.value for c in Confidence)


def _decode(path: str, rows) -> list[Finding] | None:
    if type(rows) is not list or not all(_row_ok(row) for row in rows):
        return None
    return [Finding(path, row[0], row[1], row[2], row[3], row[4], row[5], Severity(row[6]),
                    Confidence(row[7]), row[8], _decode_fix(row[9]),
                    related=tuple(Site(*site) for site in row[10]),
                    facts=tuple(Fact(text, Site(*site) if site else None) for text, site in row[11]),
                    cause=row[12]) for row in rows]


def _identity(info: os.stat_result) -> list[int]:
    """The index file's identity (device and inode), written into the index itself. A cache that
    arrives with a clone, a copy or an archive is a new file with another identity, so it is
    not trusted: its entries could say that a file has no finding. Only an index that kernelint
    wrote in place on this machine is read."""
    return [info.st_dev, info.st_ino]


def _warn(message: str) -> None:
    try:
        print(f"kernelint: warning: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):  # stderr closed: nothing left to tell
        pass


def _read_index(path: Path):
    """The parsed index, or None. Only a regular file of sane size is read, without blocking:
    the index could be a FIFO or a link to ``/dev/zero`` in a cache that came with a clone."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_INDEX_BYTES:
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read(MAX_INDEX_BYTES + 1)
        if len(data) > MAX_INDEX_BYTES:
            return None
        index = json.loads(data.decode("utf-8"))
        if type(index) is not dict or index.get("file") != _identity(info):
            return None  # not the file kernelint wrote here: copied, cloned or unpacked
        return index
    except (OSError, ValueError, RecursionError, MemoryError):
        return None
    finally:
        os.close(fd)


class Cache:
    """The index of one cache directory, for one kernelint build. Never raises on a missing,
    unreadable, foreign or corrupt cache: it then starts empty, and an entry that is not
    exactly what kernelint writes is a miss (checked again and rewritten)."""

    def __init__(self, directory: Path, current_fact=None):
        self.directory = directory
        #: key -> the fact's value now (None: cannot say); entries whose recorded facts differ
        #: are misses. Memoised: one run computes each fact once.
        self._current_fact = current_fact
        self._facts_now: dict[str, str | None] = {}
        self.fingerprint = fingerprint()
        self._entries: dict[str, list] = {}
        self._changed = False
        data = _read_index(directory / INDEX)
        if (type(data) is dict and data.get("fingerprint") == self.fingerprint
                and type(data.get("entries")) is dict):
            self._entries = data["entries"]

    def key(self, path: str) -> str:
        return os.path.abspath(path)

    def has(self, path: str) -> bool:
        return self.key(path) in self._entries

    def get(self, path: str, file_digest: str) -> list[Finding] | None:
        """The cached findings of ``path`` if its entry has this digest, else None."""
        entry = self._entries.get(self.key(path))
        if type(entry) is not list or len(entry) != 3 or type(entry[0]) is not str or entry[0] != file_digest:
            return None
        if not self._facts_hold(entry[2]):
            return None
        return _decode(path, entry[1])

    def _facts_hold(self, reads) -> bool:
        """Every fact from another file the entry was computed from still has its value."""
        if type(reads) is not dict:
            return False
        if reads and self._current_fact is None:
            return False
        for key, value in reads.items():
            if type(value) is not str:
                return False
            if key not in self._facts_now:
                self._facts_now[key] = self._current_fact(key)
            if self._facts_now[key] != value:
                return False
        return True

    def put(self, path: str, file_digest: str, findings: list[Finding], reads: dict[str, str] | None = None) -> None:
        self._entries[self.key(path)] = [file_digest, _encode(findings), dict(reads or {})]
        self._changed = True

    def save(self) -> None:
        """Write the index atomically if anything changed. Entries of files that no longer
        exist are dropped. A cache that cannot be written is skipped with one warning."""
        if not self._changed:
            return
        entries = {p: e for p, e in self._entries.items() if os.path.exists(p)}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by kernelint.\n*\n", encoding="utf-8")
            handle, temporary = tempfile.mkstemp(prefix=".index-", suffix=".tmp", dir=self.directory)
            try:
                identity = _identity(os.fstat(handle))  # kept by the rename below
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    json.dump({"format": _FORMAT, "fingerprint": self.fingerprint, "file": identity,
                               "entries": entries}, out, separators=(",", ":"))
                os.replace(temporary, self.directory / INDEX)
            except BaseException:
                os.unlink(temporary)
                raise
            self._remove_stale_temporaries()
        except OSError as error:
            _warn(f"cache not written to {self.directory}: {error.strerror or error} "
                  f"(--no-cache skips it; {ENV_DIRECTORY} puts it elsewhere)")

    def _remove_stale_temporaries(self) -> None:
        """Temporary files of runs killed while saving (SIGKILL leaves no time to clean up);
        only old ones, so a concurrent run's file being written is left alone."""
        for stale in self.directory.glob(".index-*.tmp"):
            try:
                if time.time() - stale.stat().st_mtime > _STALE_TEMPORARY_S:
                    stale.unlink()
            except OSError:
                pass
