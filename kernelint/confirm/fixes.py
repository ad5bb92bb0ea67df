"""The fixed run's edits: only the flagged line (and the lines of the same cause) changed.

A rule that offers a mechanical fix (``Finding.fix``) gives its own edits. KL103's fix is
mechanical though the rule does not offer it (which operand to widen is a choice a user should
see): the flagged product's left operand made int64, ``row * stride`` -> ``row.to(tl.int64) * stride``.
Each edit is ``{"path", "line", "old", "new"}`` on one line; ``old`` must occur there exactly once.
"""
from __future__ import annotations

import ast

from kernelint.confirm.entry import Target

_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


def _language_alias(tree: ast.Module) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "triton.language":
                    return alias.asname or "triton.language"
        if isinstance(node, ast.ImportFrom) and node.module == "triton":
            for alias in node.names:
                if alias.name == "language":
                    return alias.asname or "language"
    return "tl"


def _single_definition(tree: ast.Module, product: ast.BinOp) -> ast.expr | None:
    """The ``tl.program_id(...)`` call the product's left operand comes from, through names bound
    once in its function (``pid_b = pid_bc - pid_c * batch`` with ``pid_bc = tl.program_id(1)``):
    KL103's message says to convert the index where it is defined, so every product of the same
    index is fixed by one edit. A call that is not ``program_id`` is widened as it is."""
    if not isinstance(product.left, ast.Name):
        return None
    function = next((f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                     and f.lineno <= product.lineno <= f.end_lineno), None)
    if function is None:
        return None

    def bound_once(name: str) -> ast.expr | None:
        bound = [n for n in ast.walk(function) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For))
                 and any(isinstance(t, ast.Name) and t.id == name
                         for t in ast.walk(n.targets[0] if isinstance(n, ast.Assign) else n.target))]
        if len(bound) == 1 and isinstance(bound[0], ast.Assign) and len(bound[0].targets) == 1 \
                and isinstance(bound[0].targets[0], ast.Name):
            return bound[0].value
        return None

    def source_call(name: str, depth: int) -> ast.Call | None:
        value = bound_once(name)
        if value is None or depth > 3:
            return None
        if isinstance(value, ast.Call):
            return value
        for inner in ast.walk(value):
            if isinstance(inner, ast.Name):
                found = source_call(inner.id, depth + 1)
                if found is not None and ast.unparse(found.func).endswith("program_id"):
                    return found
        return None

    return source_call(product.left.id, 0)


def fix_edits(target: Target) -> tuple[list[dict], str | None]:
    path = target.path
    source = path.read_text(encoding="utf-8")
    lines = source.split("\n")
    if target.finding_fix:
        edits = []
        for edit in target.finding_fix:
            if edit["line"] != edit["end_line"]:
                return [], "the rule's fix spans lines"
            line = lines[edit["line"] - 1]
            old = line[edit["col"]:edit["end_col"]]
            if not old or line.count(old) != 1:
                old, new = line, line[:edit["col"]] + edit["replacement"] + line[edit["end_col"]:]
            else:
                new = edit["replacement"]
            edits.append({"path": str(path), "line": edit["line"], "old": old, "new": new})
        return edits, None
    if target.code != "KL103":
        return [], f"{target.code} offers no mechanical fix"
    tree = ast.parse(source)
    alias = _language_alias(tree)
    products = {(n.lineno, n.col_offset + 1): n for n in ast.walk(tree)
                if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult)}
    edits = []
    for line, column, end_line, _ in target.sites:
        product = products.get((line, column))
        if product is None or end_line != line:
            return [], f"the flagged product at line {line} is not one multiplication on one line"
        defined = _single_definition(tree, product)
        if defined is not None:
            old = ast.get_source_segment(source, defined)
            new = f"{old}.to({alias}.int64)"
            if lines[defined.lineno - 1].count(old) == 1 and defined.lineno == defined.end_lineno:
                edit = {"path": str(path), "line": defined.lineno, "old": old, "new": new}
                if edit not in edits:
                    edits.append(edit)
                continue
        old = ast.get_source_segment(source, product)
        left = ast.get_source_segment(source, product.left)
        right = ast.get_source_segment(source, product.right)
        widened = left if isinstance(product.left, _ATOMS) else f"({left})"
        new = f"{widened}.to({alias}.int64) * {right}"
        if lines[line - 1].count(old) != 1:
            return [], f"line {line} holds `{old}` more than once"
        edits.append({"path": str(path), "line": line, "old": old, "new": new})
    return edits, None


def apply(edits: list[dict], original_root, copy_root) -> None:
    """Apply ``edits`` (paths under ``original_root``) to the same files under ``copy_root``."""
    from pathlib import Path

    by_path: dict[str, list[dict]] = {}
    for edit in edits:
        by_path.setdefault(edit["path"], []).append(edit)
    for original, file_edits in by_path.items():
        relative = Path(original).resolve().relative_to(Path(original_root).resolve())
        copy = Path(copy_root) / relative
        lines = copy.read_text(encoding="utf-8").split("\n")
        for edit in file_edits:
            line = lines[edit["line"] - 1]
            if line.count(edit["old"]) != 1:
                raise ValueError(f"{relative}:{edit['line']} does not hold {edit['old']!r} exactly once")
            lines[edit["line"] - 1] = line.replace(edit["old"], edit["new"])
        copy.write_text("\n".join(lines), encoding="utf-8")
