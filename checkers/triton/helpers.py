"""What several Triton rules share that is not a fact about the code: reference names and
message formatting. Facts about code belong in ``kernelint.model``."""
from __future__ import annotations

import ast

SEED = "cuTile→Triton conversion guide (seed 000)"


def short(node: ast.AST, limit: int = 40) -> str:
    """``node`` as source, cut to ``limit`` characters for a message."""
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."
