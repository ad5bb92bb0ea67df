"""Building blocks for the fixes rules attach to reports: text edits on ``ast`` positions.

Every edit touches only the span it names, so comments and formatting around it survive.
Positions follow ``ast`` (1-based lines, 0-based UTF-8 byte columns), as ``Edit`` does.
"""
from __future__ import annotations

import ast
import re

from kernelint.findings import Edit, Fix


def replace(node: ast.AST, text: str) -> Edit:
    """Replace the source of ``node`` with ``text``."""
    return Edit(node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, text)


def insert_after(node: ast.AST, text: str) -> Edit:
    return Edit(node.end_lineno, node.end_col_offset, node.end_lineno, node.end_col_offset, text)


def insert_before(node: ast.AST, text: str) -> Edit:
    return Edit(node.lineno, node.col_offset, node.lineno, node.col_offset, text)


def replace_attribute_name(node: ast.Attribute, name: str) -> Edit:
    """``torch.int32`` -> ``torch.int64``: only the last name changes, however the module is spelled."""
    end = node.end_col_offset
    return Edit(node.end_lineno, end - len(node.attr.encode("utf-8")), node.end_lineno, end, name)


_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_imports_of_last_tree: list = [None, ()]


def _imports(tree: ast.Module) -> tuple[ast.AST, ...]:
    """The file's import statements, found through statement lists only (imports are
    statements); remembered for the last tree, since one file's reports ask repeatedly."""
    if _imports_of_last_tree[0] is not tree:
        found, stack = [], [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
                continue
            for name in _BLOCK_FIELDS:
                stack.extend(getattr(node, name, ()) or ())
        _imports_of_last_tree[:] = [tree, tuple(found)]
    return _imports_of_last_tree[1]


def local_name(tree: ast.Module, qualname: str) -> str | None:
    """How this file spells ``qualname`` (``triton.language`` -> ``tl`` after ``import
    triton.language as tl``), from its imports; None when nothing imported reaches it."""
    best = None
    for node in _imports(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound, target = (alias.asname, alias.name) if alias.asname else ((top := alias.name.split(".")[0]), top)
                spelling = _spell(bound, target, qualname)
                if spelling and (best is None or len(spelling) < len(best)):
                    best = spelling
        elif node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*":
                    spelling = _spell(alias.asname or alias.name, f"{node.module}.{alias.name}", qualname)
                    if spelling and (best is None or len(spelling) < len(best)):
                        best = spelling
    return best


def _spell(bound: str, target: str, qualname: str) -> str | None:
    if qualname == target:
        return bound
    if qualname.startswith(target + "."):
        return bound + qualname[len(target):]
    return None


def needs_parentheses(node: ast.expr) -> bool:
    """Whether ``node`` must be wrapped before ``.method()`` can follow it."""
    return not isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant))


def remove_keyword(call: ast.Call, keyword: ast.keyword, source_lines: list[str]) -> Edit | None:
    """Delete ``keyword`` from ``call`` with the comma that joins it to its neighbour; a keyword
    on lines of its own goes with those lines. Comments are never deleted: None when one sits
    in the text that would have to go."""
    lines = [line.encode("utf-8") for line in source_lines]
    first, last = lines[keyword.lineno - 1], lines[keyword.end_lineno - 1]
    after = last[keyword.end_col_offset:]
    trailing = after.lstrip()
    comma = trailing.startswith(b",")
    if comma:
        trailing = trailing[1:].lstrip()
    if not first[:keyword.col_offset].strip() and not trailing and (comma or keyword.end_lineno < call.end_lineno):
        return Edit(keyword.lineno, 0, keyword.end_lineno + 1, 0, "")  # its own line(s)
    arguments = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
    index = next(i for i, n in enumerate(arguments) if n is keyword)
    if index > 0:
        before = arguments[index - 1]
        start, end = (before.end_lineno, before.end_col_offset), (keyword.end_lineno, keyword.end_col_offset)
    elif index + 1 < len(arguments):
        following = arguments[index + 1]
        start, end = (keyword.lineno, keyword.col_offset), (following.lineno, following.col_offset)
    else:  # the only argument: take a trailing comma on its line with it
        start = (keyword.lineno, keyword.col_offset)
        end = (keyword.end_lineno, keyword.end_col_offset + (after.index(b",") + 1 if comma else 0))
    if b"#" in _between(source_lines, start, end).encode("utf-8"):
        return None
    return Edit(start[0], start[1], end[0], end[1], "")


def _between(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    """Source text from ``start`` to ``end`` (ast positions)."""
    encoded = [line.encode("utf-8") for line in lines]
    if start[0] == end[0]:
        return encoded[start[0] - 1][start[1]:end[1]].decode("utf-8", "replace")
    parts = [encoded[start[0] - 1][start[1]:]]
    parts.extend(encoded[start[0]:end[0] - 1])
    parts.append(encoded[end[0] - 1][:end[1]])
    return b"\n".join(parts).decode("utf-8", "replace")


_NOQA = re.compile(r"#\s*noqa\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
_DIRECTIVE = re.compile(r"#\s*kernelint:\s*disable(?:-file)?\s*=\s*(?P<codes>[\w\-]+(?:\s*,\s*[\w\-]+)*)")


def drop_suppression(line_text: str, line: int, comment_column: int, key: str, ours: bool) -> Fix | None:
    """The fix for an unused suppression: remove ``key`` from the comment at ``comment_column``
    (a character column, as the tokenizer gives it); the whole directive when it names nothing
    else, the whole comment when nothing else is in it, the whole line when it held only that."""
    comment = line_text[comment_column:].rstrip("\r\n")
    pattern = _DIRECTIVE if ours else _NOQA
    for match in pattern.finditer(comment):
        names = [(m.group(), m.start(), m.end()) for m in re.finditer(r"[\w\-]+", match.group("codes"))]
        hit = next((n for n in names if n[0].upper() == key.upper() or n[0].lower() == key.lower()), None)
        if hit is None:
            continue
        offset = match.start("codes")
        if len(names) > 1:
            i = names.index(hit)
            start, end = (names[i - 1][2], hit[2]) if i > 0 else (hit[1], names[1][1])
            new_comment = comment[:offset + start] + comment[offset + end:]
        else:
            new_comment = (comment[:match.start()].rstrip() + " " + comment[match.end():].lstrip()).strip()
            if new_comment and not new_comment.startswith("#"):
                new_comment = "# " + new_comment
        return _comment_fix(line_text, line, comment_column, comment, new_comment, key)
    return None


def _comment_fix(line_text: str, line: int, column: int, comment: str, new_comment: str, key: str) -> Fix:
    code = line_text[:column]
    title = f"Remove unused suppression {key}"
    byte = len(code.encode("utf-8"))
    end = byte + len(comment.encode("utf-8"))
    if new_comment.strip("# "):
        return Fix(title, (Edit(line, byte, line, end, new_comment),))
    if not code.strip():  # the comment was the whole line: drop the line
        return Fix(title, (Edit(line, 0, line + 1, 0, ""),))
    kept = len(code.rstrip().encode("utf-8"))
    return Fix(title, (Edit(line, kept, line, end, ""),))
