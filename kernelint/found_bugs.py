"""The summary line of ``docs/found-bugs.md``, counted from the page's own tables (issue 24), so
the counts cannot drift from the rows: ``python -m kernelint.docs_generator`` rewrites the block
between the ``found-bugs-summary`` markers, and ``--check`` fails when it is stale.

The findings table needs the columns ``repository @ commit``, ``H200`` and ``kind`` (a kind is
``real`` or ``latent``, optionally followed by its limit); the false-findings table needs
``findings`` (how many sites the row stands for) and ``now`` (``silent; ...`` or ``**not yet
silent**...``). A row that fits none of these is an error, not a silent miscount."""
from __future__ import annotations

import re
from pathlib import Path

PAGE = Path("docs") / "found-bugs.md"
_BLOCK = re.compile(r"(<!-- found-bugs-summary:[^\n]*-->\n).*?(<!-- end found-bugs-summary -->)", re.S)
KINDS = ("real", "latent")


class TableError(ValueError):
    """A row the summary cannot count."""


def table(text: str, heading: str) -> list[dict[str, str]]:
    """The rows of the first Markdown table under ``## heading``, as column name -> cell."""
    match = re.search(rf"^## {re.escape(heading)}\s*$", text, re.M)
    if match is None:
        raise TableError(f"no section '## {heading}'")
    lines = [line.strip() for line in text[match.end():].splitlines()]
    start = next((i for i, line in enumerate(lines) if line.startswith("|")), None)
    if start is None:
        raise TableError(f"no table under '## {heading}'")
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    header, body = rows[0], rows[2:]
    for row in body:
        if len(row) != len(header):
            raise TableError(f"'## {heading}': a row has {len(row)} cells, the header {len(header)}: {row}")
    return [dict(zip(header, row)) for row in body]


def _kind(row: dict[str, str]) -> str:
    kind = row["kind"].split(" ", 1)[0].strip("*")
    if kind not in KINDS:
        raise TableError(f"row {row.get('#', '?')}: kind {row['kind']!r} is neither real nor latent")
    return kind


def _sites(row: dict[str, str]) -> int:
    if not row.get("findings", "").isdigit():
        raise TableError(f"false finding {row.get('rule', '?')} {row.get('where', '')}: "
                         f"'findings' must be a count, is {row.get('findings')!r}")
    return int(row["findings"])


def _silent(row: dict[str, str]) -> bool:
    now = row["now"]
    if now.startswith("silent"):
        return True
    if now.startswith("**not yet silent**"):
        return False
    raise TableError(f"false finding {row.get('rule', '?')}: 'now' must start with 'silent' or "
                     f"'**not yet silent**', is {now[:40]!r}")


def summary(text: str) -> str:
    """The summary paragraph for the page ``text``."""
    found = table(text, "Findings")
    false = table(text, "False findings met in the hunt")
    kinds = [_kind(row) for row in found]
    confirmed = sum(row["H200"].startswith("**confirmed**") for row in found)
    repos = list(dict.fromkeys(row["repository @ commit"].split(" @ ")[0] for row in found))
    sites = [_sites(row) for row in false]
    silent = sum(count for count, row in zip(sites, false) if _silent(row))
    return (f"**found {len(found)} · confirmed on the H200 {confirmed} · real {kinds.count('real')} · "
            f"latent {kinds.count('latent')} · false met in the hunt {sum(sites)}** ({silent} now silent "
            f"through a fixture or a model fix; {sum(sites) - silent} not yet). Repositories with a real "
            f"or latent finding: {len(repos)} ({', '.join(repos)}).\n")


def regenerate(text: str) -> str | None:
    """``text`` with its summary block rewritten, or None when the page has no block markers."""
    if not _BLOCK.search(text):
        return None
    generated = summary(text)
    return _BLOCK.sub(lambda m: m.group(1) + generated + m.group(2), text)


def page(repo: Path) -> str | None:
    """docs/found-bugs.md of ``repo`` with its summary regenerated; None without the page or markers."""
    path = repo / PAGE
    return regenerate(path.read_text(encoding="utf-8")) if path.is_file() else None
